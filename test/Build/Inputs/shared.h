// Included by step.kdsl and scale.kdsl.
#pragma once
KSC_FUNC float half_square(float v) { return 0.5f * v * v; }
