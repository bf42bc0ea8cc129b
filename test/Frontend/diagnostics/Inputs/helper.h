// A user header: kernel files may include their own files.
#ifndef HELPER_H
#define HELPER_H
KSC_FUNC float helper_twice(float x) { return 2.0f * x; }
#endif
