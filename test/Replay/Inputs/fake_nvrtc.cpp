// A stand-in for NVRTC (libnvrtc.so) for testing ksc-replay without a GPU,
// with the stand-in CUDA driver (test/Run/Cuda/Inputs/fake_cuda.cpp) and
// FAKE_CUDA_CODE: it compiles nothing, and the "CUBIN" of a program is the
// text "KSC-FAKE-NVRTC <FNV-1a hash of the source>", which the stand-in
// driver turns into the host code utils/lit/stand-in-code.py compiled from
// that source. The lowered name of a name expression `::K` is `K`. ksc-run
// and ksc-replay find it as lib64/libnvrtc.so of --cuda-path.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
struct Program {
  std::string source;
  std::vector<std::string> expressions, lowered;
  std::string cubin;
};

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}
} // namespace

extern "C" {
int nvrtcVersion(int *major, int *minor) {
  *major = 13;
  *minor = 0;
  return 0;
}
const char *nvrtcGetErrorString(int result) {
  return result ? "stand-in NVRTC error" : "NVRTC_SUCCESS";
}
int nvrtcCreateProgram(Program **program, const char *source, const char *,
                       int, const char *const *, const char *const *) {
  *program = new Program{source, {}, {}, {}};
  return 0;
}
int nvrtcDestroyProgram(Program **program) {
  delete *program;
  *program = nullptr;
  return 0;
}
int nvrtcAddNameExpression(Program *program, const char *expression) {
  program->expressions.push_back(expression);
  return 0;
}
int nvrtcCompileProgram(Program *program, int, const char *const *) {
  char text[64];
  std::snprintf(text, sizeof(text), "KSC-FAKE-NVRTC %016llx\n",
                (unsigned long long)fnv1a(program->source));
  program->cubin = text;
  for (const std::string &expression : program->expressions)
    program->lowered.push_back(expression.rfind("::", 0) == 0
                                   ? expression.substr(2)
                                   : expression);
  return 0;
}
int nvrtcGetProgramLogSize(Program *, size_t *size) {
  *size = 1;
  return 0;
}
int nvrtcGetProgramLog(Program *, char *log) {
  *log = '\0';
  return 0;
}
int nvrtcGetPTXSize(Program *, size_t *size) {
  *size = sizeof("// stand-in NVRTC\n");
  return 0;
}
int nvrtcGetPTX(Program *, char *ptx) {
  std::strcpy(ptx, "// stand-in NVRTC\n");
  return 0;
}
int nvrtcGetCUBINSize(Program *program, size_t *size) {
  *size = program->cubin.size() + 1;
  return 0;
}
int nvrtcGetCUBIN(Program *program, char *cubin) {
  std::memcpy(cubin, program->cubin.c_str(), program->cubin.size() + 1);
  return 0;
}
int nvrtcGetLoweredName(Program *program, const char *expression,
                        const char **lowered) {
  for (size_t i = 0; i < program->expressions.size(); ++i)
    if (program->expressions[i] == expression) {
      *lowered = program->lowered[i].c_str();
      return 0;
    }
  return 7; // NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID
}
}
