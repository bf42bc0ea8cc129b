// Falling bodies and a fit of gravity, with kernels ksc compiled at build
// time (see CMakeLists.txt):
//  1. four bodies dropped from 10, 20, 30 and 40 m fall for one second
//     (100 semi-implicit Euler steps of sim::step), next to the exact
//     heights (sim::exact);
//  2. the gravity of a thrown body is fitted to observed heights by
//     gradient descent on the squared error, with the gradient from
//     fit::step_adj (the adjoint ksc made of fit::step);
//  3. the heights are halved by scale.
// Prints the results as JSON.
#include "fit.kdsl.h"
#include "integrate.kdsl.h"
#include "scale.kdsl.h"

#include <cstdio>
#include <vector>

int main() {
  const float g = 9.81f, dt = 0.01f;
  std::vector<sim::Body> bodies = {{10, 0}, {20, 0}, {30, 0}, {40, 0}};
  const int n = int(bodies.size());
  for (int k = 0; k < 100; ++k)
    sim::launch_step(n, g, dt, ksc::array<sim::Body>(bodies.data(), n));
  std::vector<float> y0 = {10, 20, 30, 40}, exact(n);
  sim::launch_exact(n, g, 1.0f, ksc::array<const float>(y0.data(), n),
                    ksc::array<float>(exact.data(), n));

  // Observations of a body thrown up at 15 m/s from 2 m, every 0.1 s for
  // 2 s, under the gravity to be found.
  const int m = 20;
  std::vector<float> t(m), observed(m);
  for (int k = 0; k < m; ++k) {
    t[k] = 0.1f * float(k + 1);
    observed[k] = 2.0f + 15.0f * t[k] - 0.5f * g * t[k] * t[k];
  }
  float fitted = 5.0f;
  for (int iteration = 0; iteration < 60; ++iteration) {
    float loss = 0, adj_g = 0, adj_loss = 1;
    fit::launch_step_adj(m, fitted, 2.0f, 15.0f,
                         ksc::array<const float>(t.data(), m),
                         ksc::array<const float>(observed.data(), m),
                         ksc::array<float>(&loss, 1),
                         ksc::array<float>(&adj_g, 1),
                         ksc::array<float>(&adj_loss, 1));
    fitted -= 0.02f * adj_g;
  }

  std::vector<float> halves(n);
  for (int i = 0; i < n; ++i)
    halves[i] = bodies[i].y;
  launch_scale(n, 0.5f, ksc::array<float>(halves.data(), n));

  auto print = [](const char *name, const std::vector<float> &values) {
    std::printf("  \"%s\": [", name);
    for (size_t i = 0; i < values.size(); ++i)
      std::printf("%s%.6g", i ? ", " : "", values[i]);
    std::printf("],\n");
  };
  std::vector<float> euler;
  for (const sim::Body &b : bodies)
    euler.push_back(b.y);
  std::printf("{\n");
  print("euler", euler);
  print("exact", exact);
  print("halves", halves);
  std::printf("  \"g\": %.6g\n}\n", fitted);
  return 0;
}
