#!/usr/bin/env python3
"""Compiles the GPU code of a bundle as host code for the stand-in driver.

    stand-in-code.py --cxx CXX --runtime-dir DIR --shim-dir DIR BUNDLE OUT

The stand-in CUDA driver (test/Run/Cuda/Inputs/fake_cuda.cpp) runs a
kernel, with FAKE_CUDA_CODE=OUT, by calling the host code compiled from the
CUDA C++ of the same kernels: this script compiles the CUDA C++ of every
case of the bundle (code/HASH.cu) with the host compiler, cuda_host.h (in
--shim-dir) before it, a few files per shared library (OUT/batchN.so),
each in a namespace of its own, named after KEY, the FNV-1a hash of the
CUDA C++ (what the stand-in NVRTC names its code by). It has an entry point
ksc_host_entry_KEY_<name> per kernel, under the name the stand-in NVRTC
lowers it to (its `__global__` function's) and, when the case has PTX,
under its kernel name (the PTX's entry). OUT/KEY.entry says where they
are (the library and KEY), and so does OUT/PTXKEY.entry for the PTX of
the same case, PTXKEY the FNV-1a hash of its text. The header and the
runtime are precompiled once; the libraries compile in parallel. The SIMT
stand-in (cuda_host.h's scheduler and CUDA intrinsics, with Boost.Context)
is compiled once, optimized, into OUT/simt.o, which every library links
(KSC_SIMT_EXTERN: the kernels' files only declare it).
"""

import argparse
import concurrent.futures
import glob
import json
import os
import subprocess
import sys

# CUDA C++ files per library: enough to share a compiler's start-up, few
# enough for the libraries to compile in parallel.
BATCH = 12


def fnv1a(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % value


def read_cases(bundle):
    for path in sorted(glob.glob(os.path.join(bundle, "cases", "**", "*.json"),
                                 recursive=True)):
        with open(path) as f:
            yield json.load(f)


def batch_source(batch, sources):
    """The C++ of a library with the CUDA C++ files `batch` (keys of
    `sources`: key -> (path, entry name -> expression))."""
    # The runtime first, as host code; then __CUDACC_RTC__ leaves out the
    # launch functions of ksc's CUDA C++ (extern "C", so one per kernel
    # name in a library) and its #include of the runtime.
    text = ['#include "cuda_host.h"\n#define __CUDACC_RTC__ 1\n']
    for key in batch:
        path, names = sources[key]
        text.append('namespace m%s {\n#include "%s"\n}\n'
                    % (key, os.path.abspath(path)))
        for name in sorted(names):
            expression = names[name]
            function = expression[2:] if expression.startswith("::") \
                else expression
            text.append(
                'extern "C" int ksc_host_entry_%s_%s(unsigned blocks, '
                "unsigned block_size, void **params, char *message, "
                "size_t size) {\n"
                "  return ksc_host::launch(&m%s::%s, blocks, block_size, "
                "params, message, size);\n}\n"
                % (key, name, key, function))
    return "".join(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--runtime-dir", required=True)
    parser.add_argument("--shim-dir", required=True)
    parser.add_argument("-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("bundle")
    parser.add_argument("out")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    flags = ["-std=c++17", "-O0", "-w", "-fPIC", "-ffp-contract=off",
             "-DKSC_SIMT_EXTERN", "-I", args.runtime_dir]

    # The header and the runtime, once, precompiled; at the same time the
    # SIMT stand-in, optimized (a launch of many threads spends its time
    # there).
    pch_dir = os.path.join(args.out, "pch")
    os.makedirs(pch_dir, exist_ok=True)
    header = os.path.join(pch_dir, "cuda_host.h")
    with open(os.path.join(args.shim_dir, "cuda_host.h")) as f:
        text = f.read()
    with open(header, "w") as f:
        f.write(text)
    simt = os.path.join(args.out, "simt.o")
    stand_in = subprocess.Popen(
        [args.cxx, "-std=c++17", "-O2", "-w", "-fPIC", "-DKSC_SIMT_EXTERN",
         "-DKSC_SIMT_IMPLEMENTATION", "-I", args.runtime_dir, "-x", "c++",
         "-c", header, "-o", simt])
    subprocess.run([args.cxx] + flags + ["-x", "c++-header", header, "-o",
                                         header + ".gch"], check=True)
    if stand_in.wait():
        print("FAILED: simt.o (the SIMT stand-in needs Boost.Context: the "
              "Debian package libboost-context-dev)")
        return 1

    sources = {}  # the key of a CUDA C++ file -> (its path, its entries)
    links = {}    # the key of a PTX file -> the key of its CUDA C++
    for case in read_cases(args.bundle):
        code = case["code"]
        if "cuda" not in code:
            continue
        cuda = os.path.join(args.bundle, code["cuda"])
        with open(cuda, "rb") as f:
            key = fnv1a(f.read())
        # The entry the stand-in NVRTC lowers each kernel to, and for PTX
        # the kernel's name.
        names = sources.setdefault(key, (cuda, {}))[1]
        for kernel in code["kernels"]:
            expression = kernel["expression"]
            names[expression[2:] if expression.startswith("::")
                  else expression] = expression
            if "ptx" in code:
                names[kernel["kernel"]] = expression
        if "ptx" in code:
            with open(os.path.join(args.bundle, code["ptx"]), "rb") as f:
                links[fnv1a(f.read())] = key

    keys = sorted(sources)
    batches = [keys[i:i + BATCH] for i in range(0, len(keys), BATCH)]

    def build(index):
        library = "batch%d.so" % index
        wrapper = os.path.join(args.out, "batch%d.cpp" % index)
        with open(wrapper, "w") as f:
            f.write(batch_source(batches[index], sources))
        command = [args.cxx] + flags + ["-I", pch_dir, "-shared", wrapper,
                                        simt, "-lboost_context", "-o",
                                        os.path.join(args.out, library)]
        result = subprocess.run(command, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        return library, result

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for index, (library, result) in enumerate(
                pool.map(build, range(len(batches)))):
            if result.returncode:
                failures += 1
                print("FAILED: %s\n%s" % (library, result.stdout))
            for key in batches[index]:
                with open(os.path.join(args.out, key + ".entry"), "w") as f:
                    f.write("%s %s\n" % (library, key))
    for ptx, cuda in links.items():
        if ptx != cuda:
            with open(os.path.join(args.out, cuda + ".entry")) as f:
                entry = f.read()
            with open(os.path.join(args.out, ptx + ".entry"), "w") as f:
                f.write(entry)
    print("compiled %d CUDA C++ files for the stand-in driver, %d failures"
          % (len(sources), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
