//===- bundle.cpp - libFuzzer target: ksc-replay's bundle reader ---------===//
//
// Part of ksc. Reads each input as the one case of a GPU bundle
// (cases/c.json, with the `name` "c") as ksc-replay reads a bundle it was
// handed: a bundle comes from another machine, so its cases may name any
// file, have any name and any numbers. The bundle around it is made once
// per process in a temporary directory: bundle.json, a PTX and a data file
// under code/ and data/, the case's results (cases/c.bin, 64 bytes), and a
// file next to the bundle that no case may reach ("../outside.ptx"). Errors
// are expected; a crash, a sanitizer report, a hang, a leak, or a case read
// with the outside file's contents is a bug.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Bundle.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace llvm;
using namespace ksc::runner;

static constexpr StringLiteral kOutside = "outside of the bundle\n";

static void writeText(const Twine &path, StringRef text) {
  std::error_code ec;
  raw_fd_ostream os(path.str(), ec);
  if (ec) {
    errs() << "ksc-fuzz-bundle: cannot write " << path << ": " << ec.message()
           << "\n";
    std::abort();
  }
  os << text;
}

/// The directory the bundle is made in, removed when the process exits.
static SmallString<128> &getRoot() {
  static SmallString<128> root;
  return root;
}

/// The bundle directory, made on the first call.
static const std::string &getBundle() {
  static const std::string dir = [] {
    SmallString<128> &root = getRoot();
    if (sys::fs::createUniqueDirectory("ksc-fuzz-bundle", root))
      std::abort();
    std::atexit([] { (void)sys::fs::remove_directories(getRoot()); });
    writeText(root + "/outside.ptx", kOutside);
    std::string bundle = (root + "/b").str();
    for (const char *sub : {"", "/cases", "/code", "/data"})
      if (sys::fs::create_directories(bundle + sub))
        std::abort();
    writeText(bundle + "/bundle.json",
              R"({"format": "ksc-gpu-bundle", "version": 1})");
    writeText(bundle + "/code/k.ptx", "// ptx\n");
    writeText(bundle + "/data/d.json", R"({"y": [1, 2]})");
    writeText(bundle + "/cases/c.bin", std::string(64, '\0'));
    writeText(bundle + "/ksc_runtime.h", "// runtime\n");
    return bundle;
  }();
  return dir;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &bundle = getBundle();
  writeText(bundle + "/cases/c.json",
            StringRef(reinterpret_cast<const char *>(data), size));
  Expected<std::vector<BundleCase>> cases = readBundle(bundle);
  if (!cases) {
    consumeError(cases.takeError());
    return 0;
  }
  for (const BundleCase &c : *cases) {
    bool outside = c.code.ptx == kOutside || c.code.cuda == kOutside;
    for (const auto &[name, contents] : c.data)
      outside |= contents == kOutside;
    if (outside) {
      errs() << "ksc-fuzz-bundle: case '" << c.name
             << "' read a file outside the bundle\n";
      std::abort();
    }
  }
  return 0;
}
