// Prints what test/Frontend/sizeof.kdsl's kernel stores, as ksc-run
// prints it, from the C++ ksc emitted for it (KSC_SIZES_CPP): sizeof and
// alignof of the runtime's types (quat and quatd are its vec4 and vec4d)
// and of the emitted structs.
#include KSC_SIZES_CPP

#include <cstdio>

#define SIZES(...) sizeof(__VA_ARGS__), alignof(__VA_ARGS__)

int main() {
  const size_t values[] = {
      SIZES(bool),
      SIZES(int),
      SIZES(uint32_t),
      SIZES(int64_t),
      SIZES(float),
      SIZES(double),
      SIZES(ksc::vec2),
      SIZES(ksc::vec3),
      SIZES(ksc::vec4),
      SIZES(ksc::vec2d),
      SIZES(ksc::vec3d),
      SIZES(ksc::vec4d),
      SIZES(ksc::vec2i),
      SIZES(ksc::vec3i),
      SIZES(ksc::vec4i),
      SIZES(ksc::mat22),
      SIZES(ksc::mat33),
      SIZES(ksc::mat44),
      SIZES(ksc::mat22d),
      SIZES(ksc::mat33d),
      SIZES(ksc::mat44d),
      SIZES(ksc::vec4),
      SIZES(ksc::vec4d),
      SIZES(ksc::array<float>),
      SIZES(ksc::array<double, 2>),
      SIZES(ksc::array<const int, 3>),
      SIZES(ksc::array<ksc::vec3>),
      SIZES(ksc::array<ksc::mat44d, 4>),
      SIZES(S),
      SIZES(P),
      SIZES(Q),
  };
  std::printf("{\n  \"y\": [");
  for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); ++k)
    std::printf("%s%zu", k ? ", " : "", values[k]);
  std::printf("]\n}\n");
}
