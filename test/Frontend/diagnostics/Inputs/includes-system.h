// A user header that includes a system header: rejected too.
#include <math.h>
KSC_FUNC float helper_half(float x) { return x / 2.0f; }
