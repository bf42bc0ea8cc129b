// y = 2 x + y on four numbers, with the kernel of kernels/saxpy.kdsl.
#include "saxpy.kdsl.h"

#include <cstdio>

int main() {
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  launch_saxpy(4, 2.0f, ksc::array<const float>(x, 4), ksc::array<float>(y, 4));
  std::printf("{\"y\": [%g, %g, %g, %g]}\n", y[0], y[1], y[2], y[3]);
  return 0;
}
