// Calls the C entry point of bounds-check.kdsl's gather kernel twice: with
// valid indices, then with an index past the end of x.
#include "ksc_runtime.h"
#include <cstdio>

extern "C" int ksc_launch_gather(const int64_t *dim, void *const *args,
                                 char *error, size_t error_size);

static ksc_array_desc describe(void *data, int64_t n) {
  ksc_array_desc desc = {};
  desc.data = data;
  desc.rank = 1;
  desc.shape[0] = n;
  desc.strides[0] = 1;
  return desc;
}

int main() {
  float x[] = {10, 20, 30};
  int idx[] = {2, 0, 1};
  float out[3] = {};
  ksc_array_desc xd = describe(x, 3), idxd = describe(idx, 3),
                 outd = describe(out, 3);
  void *args[] = {&xd, &idxd, &outd};
  char error[256] = "";
  const int64_t grid[3] = {3, 1, 1};
  int status = ksc_launch_gather(grid, args, error, sizeof(error));
  std::printf("in bounds: status %d, out = %g %g %g\n", status, out[0], out[1],
              out[2]);
  idx[1] = 7;
  status = ksc_launch_gather(grid, args, error, sizeof(error));
  std::printf("out of bounds: status %d, error: %s\n", status, error);
  return 0;
}
