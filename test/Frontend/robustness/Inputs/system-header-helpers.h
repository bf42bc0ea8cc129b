// A user header that marks itself as a system header (to silence warnings).
#pragma clang system_header
KSC_FUNC float twice(float x) { return 2 * x; }
