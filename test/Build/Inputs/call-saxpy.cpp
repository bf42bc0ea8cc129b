// Calls the launchers of `ksc --grad=all` on saxpy.kdsl through the
// header ksc wrote; expected values by hand: y = 2 * 3 + 1 = 7,
// adj_a = adj_y * x = 1 * 2, tan_y = tan_a * x + tan_x * a + tan_y
// = 1 * 2 + 0 * 3 + 1 = 3 (with x = 2, a = 3, y = 1).
#include "grad.h"

#include <cstdio>

int main() {
  float x[1] = {2}, y[1] = {1};
  launch_saxpy(1, 3.0f, ksc::array<const float>(x, 1), ksc::array<float>(y, 1));
  float y0[1] = {1}, adj_a[1] = {0}, adj_x[1] = {0}, adj_y[1] = {1};
  launch_saxpy_adj(1, 3.0f, ksc::array<const float>(x, 1),
                   ksc::array<float>(y0, 1), ksc::array<float>(adj_a, 1),
                   ksc::array<float>(adj_x, 1), ksc::array<float>(adj_y, 1));
  float y1[1] = {1}, tan_x[1] = {0}, tan_y[1] = {1};
  launch_saxpy_jvp(1, 3.0f, ksc::array<const float>(x, 1),
                   ksc::array<float>(y1, 1), 1.0f,
                   ksc::array<const float>(tan_x, 1),
                   ksc::array<float>(tan_y, 1));
  std::printf("y = %g adj_a = %g tan_y = %g\n", y[0], adj_a[0], tan_y[0]);
  return 0;
}
