// A C++ program that uses the code ksc emits for saxpy.kdsl.
#include "ksc_runtime.h"
#include <cstdio>

void launch_saxpy(ksc::grid dim, float a, ksc::array<const float> x,
                  ksc::array<float> y);

int main() {
  float x[] = {1, 2, 3, 4};
  float y[] = {0.5f, 0.5f, 0.5f, 0.5f};
  launch_saxpy(4, 2.0f, ksc::array<float>(x, 4), ksc::array<float>(y, 4));
  std::printf("%g %g %g %g\n", y[0], y[1], y[2], y[3]);
  return 0;
}
