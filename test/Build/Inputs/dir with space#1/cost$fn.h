// An included file whose path has a space, '#' and '$' (see depfile.test).
#pragma once
KSC_FUNC float cost(float v) { return v * v; }
