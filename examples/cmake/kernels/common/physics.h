// Shared by integrate.kdsl and fit.kdsl.
#pragma once

// The height at time t of a body thrown up from y0 at speed v0 under
// gravity g.
KSC_FUNC float height(float y0, float v0, float g, float t) {
  return y0 + v0 * t - 0.5f * g * t * t;
}
