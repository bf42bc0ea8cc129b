// CUDA code that launches the kernel of step.kdsl itself, declared by the
// header of `ksc --target=cuda --emit-header` (emit-header-cuda.test).
#include "step.cuh"

int main() {
  phys::Body *bodies = nullptr;
  float *energy = nullptr;
  phys::step<<<1, 32>>>(ksc::grid(0), 0.5f, ksc::array<phys::Body>(bodies, 0),
                        ksc::array<float>(energy, 0));
  return int(phys::step_launch(0, nullptr, 0.5f,
                               ksc::array<phys::Body>(bodies, 0),
                               ksc::array<float>(energy, 0)));
}
