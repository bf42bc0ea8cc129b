//===- SplitMix64.h - The random-number generator of ksc's tools -*- C++ -*-===//
//
// Part of ksc. SplitMix64 (Steele, Lea and Flood 2014): small, fast and the
// same on every machine, so that a seed gives the same numbers everywhere.
// ksc-run draws `{"random": ...}` inputs and the directions of gradient
// checks from it, and ksc-synth its kernels and record seeds.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_SPLITMIX64_H
#define KSC_SUPPORT_SPLITMIX64_H

#include <cmath>
#include <cstdint>

namespace ksc {

class SplitMix64 {
public:
  /// The generator's increment (the odd integer nearest 2^64 / phi): also
  /// the stride between the seeds of successive draws from one seed.
  static constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;

  explicit SplitMix64(uint64_t seed) : state(seed) {}

  /// The next 64 random bits.
  uint64_t next() {
    state += kGamma;
    return finalize(state);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Standard normal (Box-Muller).
  double normal() {
    double u1 = 1.0 - uniform(); // (0, 1]: log(u1) is finite.
    double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

  /// The output of a generator in state `x`, without the generator: a
  /// bijective 64-bit mix, for hashing seeds.
  static uint64_t mix(uint64_t x) { return finalize(x + kGamma); }

private:
  static uint64_t finalize(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  uint64_t state;
};

} // namespace ksc

#endif // KSC_SUPPORT_SPLITMIX64_H
