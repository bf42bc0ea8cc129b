# -*- Python -*-
# lit configuration of the ksc regression tests.

import os
import shlex
import shutil

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
# ksc-run caches compiled kernels; keep the tests' cache in the build tree.
config.environment["KSC_CACHE_DIR"] = os.path.join(
    config.test_exec_root, "ksc-run-cache"
)
config.environment.pop("KSC_CXX", None)
llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP"])

# RUN lines run in bash; `not` at the start of a line is LLVM's tool.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(
    ["ksc", "ksc-opt", "ksc-run"], [config.ksc_tools_dir]
)
llvm_config.add_tool_substitutions(["split-file"], [config.llvm_tools_dir])

# Compiling emitted C++: %cxx is the compiler ksc was built with (warnings
# are errors); %host-cxx and %clangxx (Clang 22) compile a file to an object
# (`-c`, discarded), with the runtime header on the include path;
# %clangxx-exe is Clang 22 with those flags, to build programs.
warnings = "-std=c++17 -O2 -Wall -Wextra -Werror"
config.substitutions.append(("%ksc_runtime_dir", config.ksc_runtime_dir))
config.substitutions.append(("%ksc_obj_root", config.ksc_obj_root))
config.substitutions.append(("%ksc_src_root", config.ksc_src_root))
config.substitutions.append(
    ("%host-cxx", "%s %s -c -o /dev/null -I%s"
     % (config.host_cxx, warnings, config.ksc_runtime_dir))
)
clangxx = os.path.join(config.llvm_tools_dir, "clang++")
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
# Compiles the C++ of many .kdsl files with the host compiler and Clang 22,
# warnings as errors (see utils/lit/compile-all.py).
compile_flags = "-std=c++17 -O0 -Wall -Wextra -Werror -I%s" % config.ksc_runtime_dir
config.substitutions.append(
    (
        "%compile-all",
        " ".join(
            shlex.quote(part)
            for part in [
                config.python_executable,
                os.path.join(config.ksc_src_root, "utils", "lit", "compile-all.py"),
                "--ksc",
                os.path.join(config.ksc_tools_dir, "ksc"),
                "--cxx",
                "%s %s" % (config.host_cxx, compile_flags),
                "--cxx",
                "%s %s" % (clangxx, compile_flags),
            ]
        ),
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
