// Included by saxpy.kdsl.
#pragma once
KSC_FUNC float axpy(float a, float x, float y) { return a * x + y; }
