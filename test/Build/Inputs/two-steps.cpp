// Calls the two kernels named `step` (of step.kdsl in phys::bodies and of
// scale.kdsl in phys) through their headers and their C entry points.
#include "scale.h"
#include "step.h"

#include <cstdio>

int main() {
  // step: pos.x = 1 + dt * 1 = 1.5 with dt = 0.5; energy = 0.5 * 2 * 2 = 2.
  phys::bodies::Body body[1] = {{ksc::vec3(1.0f, 0.0f, 0.0f), 2.0f}};
  float energy[1] = {0};
  phys::bodies::launch_step(1, 0.5f, ksc::array<phys::bodies::Body>(body, 1),
                            ksc::array<float>(energy, 1));
  // phys::step: y = s * 0.5 * y * y = 3 * 0.5 * 2 * 2 = 6.
  float y[1] = {2};
  phys::launch_step(1, 3.0f, ksc::array<float>(y, 1));
  std::printf("pos.x = %g energy = %g y = %g", body[0].pos.x, energy[0], y[0]);
  // The C entry point of phys::step: with s = 2, y = 2 * 0.5 * 6 * 6 = 36.
  int64_t dim[3] = {1, 1, 1};
  float s = 2.0f;
  ksc_array_desc ydesc = {y, 1, {1}, {1}};
  void *args[] = {&s, &ydesc};
  char error[256] = "";
  int scaled = phys::phys__ksc_launch_step(dim, args, error, sizeof error);
  std::printf(" entry point: %d y = %g\n", scaled, y[0]);
  // The other one refuses an invalid grid (before it reads any argument).
  int64_t invalid[3] = {-1, 1, 1};
  int refused = phys::bodies::phys__bodies__ksc_launch_step(
      invalid, nullptr, error, sizeof error);
  std::printf("%d %s\n", refused, error);
  return 0;
}
