/*===- GlibcCompat.c - ksc-replay on older C libraries ----------------===*\
|*                                                                        *|
|* Part of ksc. ksc-replay links LLVM's Support library statically; built *|
|* against glibc 2.36 or newer, that library calls arc4random, which      *|
|* older C libraries do not have, and ksc-replay would need glibc 2.36 to *|
|* start. This definition, from getrandom (glibc 2.25), takes its place,  *|
|* so that ksc-replay needs glibc 2.34 (Ubuntu 22.04, Debian 12, RHEL 9); *|
|* test/Replay/static-link.test checks what it needs.                     *|
|*                                                                        *|
\*===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <sys/random.h>
#include <time.h>

uint32_t arc4random(void) {
  uint32_t value;
  if (getrandom(&value, sizeof(value), 0) == (ssize_t)sizeof(value))
    return value;
  /* (Only temporary file names come from it.) */
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint32_t)(now.tv_nsec ^ (now.tv_sec << 20));
}
