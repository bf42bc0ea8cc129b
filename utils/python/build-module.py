#!/usr/bin/env python3
"""Builds a Python module from one kernel file, quickly, for ksc's tests:
ksc --emit=python, then the host compiler with nanobind (whose library is
compiled once per build and Python, and kept in the venv). Projects build
modules with CMake's ksc_add_python_module instead (docs/python.md).

  build-module.py KSC KERNEL.kdsl OUTDIR NAME [ksc options...]

Run it with the Python the module is for. With jax importable, the module
gets jaxlib's headers (its kernels are XLA FFI handlers too). With
--target=cuda among the options the module is CUDA C++, compiled by nvcc
($NVCC, else nvcc on the PATH, else /usr/local/cuda/bin/nvcc) for
$KSC_CUDA_ARCH (default sm_80).
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import nanobind


def nanobind_object(include_flags, outdir):
    """nanobind's library, compiled once per Python and nanobind version
    into $KSC_MODULE_CACHE (else into OUTDIR)."""
    cache = os.environ.get("KSC_MODULE_CACHE", outdir)
    os.makedirs(cache, exist_ok=True)
    tag = f"{sys.implementation.cache_tag}-nanobind-{nanobind.__version__}"
    path = os.path.join(cache, f"{tag}.o")
    if os.path.exists(path):
        return path
    source = os.path.join(os.path.dirname(nanobind.__file__), "src",
                          "nb_combined.cpp")
    robin = os.path.join(os.path.dirname(nanobind.__file__), "ext",
                         "robin_map", "include")
    fd, temporary = tempfile.mkstemp(dir=cache, suffix=".o")
    os.close(fd)
    try:
        subprocess.run(["c++", "-std=c++17", "-O2", "-fPIC",
                        "-fvisibility=hidden", "-c", source, "-I" + robin,
                        *include_flags, "-o", temporary], check=True)
        os.replace(temporary, path)  # atomic: parallel tests may race
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return path


def main():
    ksc, kernel, outdir, name, *options = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    cuda = "--target=cuda" in options
    source = os.path.join(outdir, name + (".cu" if cuda else ".cpp"))
    subprocess.run([ksc, kernel, "--emit=python", f"--python-module={name}",
                    "-o", source, *options], check=True)
    runtime = subprocess.run([ksc, "--print-runtime-dir"], check=True,
                             capture_output=True, text=True).stdout.strip()
    include_flags = ["-I" + nanobind.include_dir(),
                     "-I" + sysconfig.get_paths()["include"]]
    library = nanobind_object(include_flags, outdir)
    output = os.path.join(outdir, name + sysconfig.get_config_var("EXT_SUFFIX"))
    if cuda:
        nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or \
            "/usr/local/cuda/bin/nvcc"
        arch = os.environ.get("KSC_CUDA_ARCH", "sm_80")
        subprocess.run([nvcc, "-std=c++17", "-O1", f"-arch={arch}",
                        "-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared",
                        source, library, "-I" + runtime, *include_flags,
                        "-o", output], check=True)
        return
    try:
        import jax.ffi
        include_flags.append("-isystem" + jax.ffi.include_dir())
    except ImportError:
        pass
    subprocess.run(["c++", "-std=c++17", "-O1", "-fPIC",
                    "-fvisibility=hidden", "-shared", source, library,
                    "-I" + runtime, *include_flags, "-pthread",
                    "-o", output], check=True)


if __name__ == "__main__":
    main()
