# -*- Python -*-
# lit configuration of the ksc regression tests.

import os
import shlex
import shutil
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "ksc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".kdsl", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ksc_obj_root, "test")

# As MLIR does: every FileCheck variable is local to its CHECK-LABEL block,
# and every --check-prefixes prefix must be used.
config.environment["FILECHECK_OPTS"] = (
    "-enable-var-scope --allow-unused-prefixes=false"
)
# ksc-run caches compiled kernels; keep the tests' cache in the build tree,
# or where `--param ksc-cache-dir=DIR` says (utils/sanitize.sh shares the
# normal build's).
config.environment["KSC_CACHE_DIR"] = lit_config.params.get(
    "ksc-cache-dir", os.path.join(config.test_exec_root, "ksc-run-cache")
)
config.environment.pop("KSC_CXX", None)
llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP"])
# The GPU runner's: the driver library (KSC_CUDA_DRIVER), where NVRTC is
# (CUDA_HOME), the devices the driver shows; the probe of `cuda-device`
# below sees them too.
llvm_config.with_system_environment(
    ["KSC_CUDA_DRIVER", "CUDA_HOME", "CUDA_VISIBLE_DEVICES"]
)

# A sanitizer build (-DKSC_SANITIZE, docs/testing.md): the sanitizers'
# options (utils/lit/sanitizer_env.py, which the unit tests' configuration
# uses too).
sys.path.insert(0, os.path.join(config.ksc_src_root, "utils", "lit"))
from sanitizer_env import set_sanitizer_environment  # noqa: E402

set_sanitizer_environment(config)

# RUN lines run in bash; `not` at the start of a line is LLVM's tool.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(
    ["ksc", "ksc-opt", "ksc-replay", "ksc-run", "ksc-synth"],
    [config.ksc_tools_dir],
)
llvm_config.add_tool_substitutions(["split-file"], [config.llvm_tools_dir])
# The libFuzzer targets of a -DKSC_FUZZ=ON build (tools/fuzz).
if config.ksc_fuzz:
    llvm_config.add_tool_substitutions(
        ["ksc-fuzz-compile", "ksc-fuzz-inputs", "ksc-fuzz-bundle"],
        [config.ksc_tools_dir])
    config.available_features.add("fuzzer")
# The lint plugin of a -DKSC_LINT=ON build (cmake/KscLint.cmake), for
# `REQUIRES: ksc-lint` tests: %ksc-lint is Clang with it loaded.
if config.ksc_lint:
    config.available_features.add("ksc-lint")
    config.substitutions.append(
        ("%ksc-lint", "%s -fplugin=%s" % (
            os.path.join(config.llvm_tools_dir, "clang++"),
            os.path.join(config.ksc_obj_root, "lib", "KscLint.so"))))

# Compiling emitted C++: %cxx is the compiler ksc was built with (warnings
# are errors); %host-cxx and %clangxx (Clang 22) compile a file to an object
# (`-c`, discarded), with the runtime header on the include path;
# %clangxx-exe is Clang 22 with those flags, to build programs.
warnings = "-std=c++17 -O2 -Wall -Wextra -Werror"
config.substitutions.append(("%ksc_runtime_dir", config.ksc_runtime_dir))
config.substitutions.append(("%ksc_obj_root", config.ksc_obj_root))
config.substitutions.append(("%ksc_tools_dir", config.ksc_tools_dir))
config.substitutions.append(("%ksc_src_root", config.ksc_src_root))
clangxx = os.path.join(config.llvm_tools_dir, "clang++")
# The compilers themselves, without flags (for wrappers of them); before
# %host-cxx and %clangxx, which lit would otherwise substitute inside them.
config.substitutions.append(("%host-cxx-program", config.host_cxx))
config.substitutions.append(("%clangxx-program", clangxx))
config.substitutions.append(
    ("%host-cxx", "%s %s -c -o /dev/null -I%s"
     % (config.host_cxx, warnings, config.ksc_runtime_dir))
)
# Before %clangxx, which lit would otherwise substitute inside it.
config.substitutions.append(
    ("%clangxx-exe", "%s %s -I%s" % (clangxx, warnings, config.ksc_runtime_dir))
)
config.substitutions.append(
    ("%clangxx", "%s %s -c -o /dev/null -I%s"
     % (clangxx, warnings, config.ksc_runtime_dir))
)
config.substitutions.append(("%cxx", "%s %s" % (config.host_cxx, warnings)))
# The Python that runs lit, for the tests' reference scripts.
config.substitutions.append(("%python", config.python_executable))
# Compares JSON numbers with a tolerance (see utils/lit/json-close.py).
config.substitutions.append(
    (
        "%json-close",
        "%s %s"
        % (
            config.python_executable,
            os.path.join(config.ksc_src_root, "utils", "lit", "json-close.py"),
        ),
    )
)
# The compile sweeps (%compile-all, %cuda-compile-all, %ptxas-assemble-all
# and %gpu-run-all compile) compile, with `%cover`, a representative subset
# of the tests' kernels: the few outputs that together have every construct
# of them all (utils/lit/cover.py), nvcc for sm_80 only, Clang and the host
# compilers checking only. `lit --param exhaustive=1` (`utils/test --param
# exhaustive=1`, or KSC_EXHAUSTIVE_TESTS=1) compiles every output with
# every compiler, nvcc for sm_80 and sm_90.
exhaustive = lit_config.params.get(
    "exhaustive", os.environ.get("KSC_EXHAUSTIVE_TESTS", "0")
) not in ("", "0")
config.substitutions.append(("%cover", "" if exhaustive else "--cover"))
config.ksc_exhaustive = exhaustive
# `REQUIRES: exhaustive` / `UNSUPPORTED: exhaustive`: a sweep's whole or its
# representative part (test/Grad/wrt-sweep*.test).
if exhaustive:
    config.available_features.add("exhaustive")

# The numbers of OS threads, besides 1, that every ksc-run of test/Run and
# test/Grad runs at (utils/lit/ksc-run-threads.py): 2, 3 (an uneven split
# of the chunks) and 8 (more OS threads than cores) by default, which costs
# about 30 s over 3 alone on 2 cores; 2, 3, 4, 8 and 16 when exhaustive;
# `lit --param test-threads=2,4` (or KSC_TEST_THREADS) picks others, empty
# none.
config.ksc_test_threads = lit_config.params.get(
    "test-threads",
    os.environ.get("KSC_TEST_THREADS", "2,3,4,8,16" if exhaustive else "2,3,8"))

# Compiles the C++ of many .kdsl files with the host compiler and Clang 22,
# warnings as errors (see utils/lit/compile-all.py).
# Unless exhaustive, the host compilers check only (-fsyntax-only): at -O0
# too, inlining the runtime's always_inline functions into large adjoints
# takes them seconds per file, and ksc-run compiles the C++ of every run
# test for real.
compile_flags = "-std=c++17 -O0 -Wall -Wextra -Werror -I%s" % config.ksc_runtime_dir
if not exhaustive:
    compile_flags += " -fsyntax-only -Wno-unused-command-line-argument"


def compile_all(ksc_args, compilers):
    """The command line of compile-all.py: ksc with `ksc_args`, then each of
    `compilers` (command lines) on its output, the host compilers with the
    runtime header precompiled."""
    parts = [
        config.python_executable,
        os.path.join(config.ksc_src_root, "utils", "lit", "compile-all.py"),
        "--ksc",
        os.path.join(config.ksc_tools_dir, "ksc"),
        "--pch",
        os.path.join(config.ksc_runtime_dir, "ksc_runtime.h"),
    ]
    parts += ["--ksc-arg=" + arg for arg in ksc_args]
    for compiler in compilers:
        parts += ["--cxx", compiler]
    return " ".join(shlex.quote(part) for part in parts)


config.substitutions.append(
    (
        "%compile-all",
        compile_all([], ["%s %s" % (config.host_cxx, compile_flags),
                         "%s %s" % (clangxx, compile_flags)]),
    )
)

# `REQUIRES: small-filesystem`: a size-limited tmpfs that a test can mount
# in a mount namespace of its own (`unshare -r -m`, which needs user
# namespaces or root), to run the tools on a full disk.
def can_mount_tmpfs():
    import tempfile
    if not shutil.which("unshare"):
        return False
    with tempfile.TemporaryDirectory() as dir:
        try:
            return subprocess.run(
                ["unshare", "-r", "-m", "sh", "-c",
                 "mount -t tmpfs -o size=64k tmpfs " + shlex.quote(dir)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False


if can_mount_tmpfs():
    config.available_features.add("small-filesystem")

# `REQUIRES: dpkg`: Debian's package tools, which `cpack -G DEB` needs.
if shutil.which("dpkg-deb") and shutil.which("dpkg-shlibdeps"):
    config.available_features.add("dpkg")

# The CUDA toolkit (CUDA_HOME, else its default location, else PATH):
# `REQUIRES: nvcc` and `REQUIRES: ptxas` tests compile emitted CUDA C++ and
# assemble PTX with it, without a GPU.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
cuda_tools = {}
for tool in ["nvcc", "ptxas"]:
    path = os.path.join(cuda_home, "bin", tool)
    if not os.access(path, os.X_OK):
        path = shutil.which(tool)
    if path:
        config.available_features.add(tool)
        cuda_tools[tool] = path
if "nvcc" in cuda_tools:
    # %cuda-compile-all: compile-all.py with `ksc --target=cuda`, then nvcc
    # for sm_80 (and sm_90 when exhaustive; one host pass) and Clang 22 in
    # CUDA mode against the same toolkit for sm_80, warnings as errors
    # (-Wno-unknown-cuda-version: Clang 22 knows CUDA up to 12.9). Unless
    # exhaustive, Clang checks only (-fsyntax-only, host and device code):
    # it takes minutes to optimize the device code of large adjoints.
    nvcc_flags = "-std=c++17 -Werror all-warnings -I%s -x cu" % config.ksc_runtime_dir
    gencode = "-gencode arch=compute_80,code=sm_80"
    if exhaustive:
        gencode += " -gencode arch=compute_90,code=sm_90"
    config.substitutions.append(
        (
            "%cuda-compile-all",
            compile_all(["--target=cuda"],
                        ["%s %s %s" % (cuda_tools["nvcc"], nvcc_flags, gencode),
                         "%s -x cuda --cuda-path=%s --cuda-gpu-arch=sm_80 "
                         "-std=c++17 -Wall -Wextra -Werror "
                         "-Wno-unknown-cuda-version -I%s%s"
                         % (clangxx,
                            os.path.dirname(os.path.dirname(cuda_tools["nvcc"])),
                            config.ksc_runtime_dir,
                            "" if exhaustive else
                            " -fsyntax-only -Wno-unused-command-line-argument")]),
        )
    )
# `REQUIRES: libdevice`: the toolkit's libdevice, which `ksc --emit=ptx`
# links for math builtins.
if os.path.exists(os.path.join(cuda_home, "nvvm", "libdevice",
                               "libdevice.10.bc")):
    config.available_features.add("libdevice")
if "ptxas" in cuda_tools:
    # %ptxas-assemble-all: compile-all.py with `ksc --target=cuda
    # --emit=ptx` and ptxas for sm_90.
    config.substitutions.append(
        (
            "%ptxas-assemble-all",
            compile_all(["--target=cuda", "--emit=ptx"],
                        ["%s -arch=sm_90" % cuda_tools["ptxas"]]),
        )
    )
for tool, path in cuda_tools.items():
    config.substitutions.append(("%" + tool, path))

# NVRTC, which `ksc-run --target=cuda --via=cuda-source` loads at run time
# (lib64/libnvrtc.so* of CUDA_HOME, else /usr/local/cuda, as ksc-run looks
# for it): `REQUIRES: nvrtc` tests compile kernels with it, without a GPU.
import glob

if glob.glob(os.path.join(cuda_home, "lib64", "libnvrtc.so*")):
    config.available_features.add("nvrtc")

# A usable CUDA device (`ksc-run --list-devices` exits 0; 77 without a
# driver or a device): `REQUIRES: cuda-device` tests run kernels on it.

try:
    probe = subprocess.run(
        [os.path.join(config.ksc_tools_dir, "ksc-run"), "--list-devices"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=120,
    )
    if probe.returncode == 0:
        config.available_features.add("cuda-device")
except (OSError, subprocess.TimeoutExpired):
    pass

# `REQUIRES: warp`: NVIDIA Warp (`pip install warp-lang`) importable by the
# tests' Python: ksc-synth validate --warp runs records on its CPU backend.
# %warp-python is that interpreter itself, not a launcher such as a pyenv
# shim, which can pick another Python in the tests' environment.
try:
    probe = subprocess.run(
        [config.python_executable, "-c",
         "import sys, warp; print(sys.executable)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        timeout=120,
        text=True,
    )
    if probe.returncode == 0:
        config.available_features.add("warp")
        config.substitutions.append(("%warp-python", probe.stdout.strip()))
except (OSError, subprocess.TimeoutExpired):
    pass

# Python modules (docs/python.md): the build's venv (utils/python/venv.sh,
# which utils/test runs), or the interpreter KSC_TEST_PYTHON names (one with
# PyTorch, say). `REQUIRES: python-modules`: nanobind and NumPy importable,
# %kpython that interpreter, %build-module the tests' quick module build;
# `jax`, `torch`, `scikit_build_core`, `ray`, `datatrove`: those importable
# too (the last two for ksc-synth on engines: test/Synth/engine-*.test).
test_python = os.environ.get("KSC_TEST_PYTHON") or os.path.join(
    config.ksc_obj_root, "python-venv", "bin", "python")
if os.path.exists(test_python):
    try:
        probe = subprocess.run(
            [test_python, "-c",
             "import sys, importlib.util as u, nanobind, numpy\n"
             "print(sys.executable)\n"
             "for m in ('jax', 'torch', 'scikit_build_core', 'ray',\n"
             "          'datatrove'):\n"
             "    print(m if u.find_spec(m) else '')"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120,
            text=True)
        if probe.returncode == 0:
            lines = probe.stdout.splitlines()
            config.available_features.add("python-modules")
            config.available_features.update(m for m in lines[1:] if m)
            config.substitutions.append(("%kpython", lines[0]))
            config.substitutions.append(
                ("%build-module", lines[0] + " " + os.path.join(
                    config.ksc_src_root, "utils", "python",
                    "build-module.py") + " " + os.path.join(
                        config.ksc_tools_dir, "ksc")))
            config.environment["KSC_MODULE_CACHE"] = os.path.join(
                config.ksc_obj_root, "test", "python-module-cache")
            config.environment["PYTHONPATH"] = os.path.join(
                config.ksc_obj_root, "lib", "ksc", "python")
    except (OSError, subprocess.TimeoutExpired):
        pass

# %gpu-run-all: the kernels of many .kdsl files through ksc-run's GPU
# target (see utils/lit/gpu-run-all.py).
config.substitutions.append(
    (
        "%gpu-run-all",
        " ".join(
            shlex.quote(part)
            for part in [
                config.python_executable,
                os.path.join(config.ksc_src_root, "utils", "lit", "gpu-run-all.py"),
                "--ksc-run",
                os.path.join(config.ksc_tools_dir, "ksc-run"),
                "--ksc",
                os.path.join(config.ksc_tools_dir, "ksc"),
            ]
        ),
    )
)

# %gpu-bundle: utils/gpu-bundle with this build's ksc-run, which makes the
# GPU bundle of the run and gradient tests; %stand-in-code: compiles a
# bundle's CUDA C++ as host code for the stand-in driver
# (utils/lit/stand-in-code.py, test/Replay).
config.substitutions.append(
    (
        "%gpu-bundle",
        "%s %s --ksc-run %s"
        % (
            config.python_executable,
            os.path.join(config.ksc_src_root, "utils", "gpu-bundle"),
            os.path.join(config.ksc_tools_dir, "ksc-run"),
        ),
    )
)
config.substitutions.append(
    (
        "%stand-in-code",
        "%s %s --cxx %s --runtime-dir %s --shim-dir %s"
        % (
            config.python_executable,
            os.path.join(config.ksc_src_root, "utils", "lit",
                         "stand-in-code.py"),
            config.host_cxx,
            config.ksc_runtime_dir,
            os.path.join(config.ksc_src_root, "test", "Replay", "Inputs"),
        ),
    )
)

# `%expect-exit-77 CMD ARGS...` succeeds only when CMD exits with status 77,
# ksc-run's status when it has no GPU to run on.
config.substitutions.append(
    (
        "%expect-exit-77",
        '%s -c "import subprocess, sys; '
        'sys.exit(subprocess.call(sys.argv[1:]) != 77)"'
        % config.python_executable,
    )
)

# `%expect-exit-1 CMD ARGS...` runs CMD and succeeds only when it exits with
# status 1, the status of a compile error (`not` accepts any non-zero status
# but a crash's).
config.substitutions.append(
    (
        "%expect-exit-1",
        '%s -c "import subprocess, sys; '
        'sys.exit(subprocess.call(sys.argv[1:]) != 1)"'
        % config.python_executable,
    )
)
