// The GPU thread's tape of the runtime (ksc::local_tape, ksc::device_tape)
// run on the host: last in, first out for values of several sizes, 8-byte
// slots, and a full tape stopping the launch with its message.
#include "ksc_runtime.h"

#include <cstdio>

int main() {
  ksc::local_tape<64> storage("k_adj");
  ksc::device_tape tape = storage;
  tape.push(1.5f);
  tape.push(ksc::vec3(1.0f, 2.0f, 3.0f));
  tape.push(-7);
  tape.push(2.25);
  tape.push(int64_t(1) << 40);
  // 8 + 16 + 8 + 8 + 8 = 48 bytes used of 64.
  bool ok = tape.pop<int64_t>() == (int64_t(1) << 40);
  ok = ok && tape.pop<double>() == 2.25;
  ok = ok && tape.pop<int>() == -7;
  ksc::vec3 v = tape.pop<ksc::vec3>();
  ok = ok && v.x == 1.0f && v.y == 2.0f && v.z == 3.0f;
  ok = ok && tape.pop<float>() == 1.5f;
  std::printf("lifo %s\n", ok ? "ok" : "WRONG");

  // Eight 8-byte slots fit; the ninth push does not.
  for (int k = 0; k < 8; ++k)
    tape.push(double(k));
  try {
    tape.push(1.0f);
    std::printf("no overflow\n");
  } catch (const ksc::launch_error &e) {
    std::printf("%s\n", e.what());
  }
  return 0;
}
