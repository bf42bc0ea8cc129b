#include "saxpy.kdsl.h"

int main() {
  float x[1] = {1}, y[1] = {2};
  launch_saxpy(1, 3.0f, ksc::array<const float>(x, 1), ksc::array<float>(y, 1));
  return y[0] == 5.0f ? 0 : 1;
}
