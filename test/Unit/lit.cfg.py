# -*- Python -*-
# lit configuration of the ksc unit tests: runs every GoogleTest binary
# named *Tests under build/unittests.

import os
import sys

import lit.formats

config.name = "ksc-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.ksc_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
# A sanitizer build: the same options as the regression tests get (the
# unit tests use MLIR's allocators too).
sys.path.insert(0, os.path.join(config.ksc_src_root, "utils", "lit"))
from sanitizer_env import set_sanitizer_environment  # noqa: E402

set_sanitizer_environment(config)
config.environment["KSC_CACHE_DIR"] = os.path.join(
    config.ksc_obj_root, "test", "ksc-run-cache"
)
# The exhaustive tests (`lit --param exhaustive=1`, or KSC_EXHAUSTIVE_TESTS=1
# in the environment) compile more generated kernels (GeneratorTest).
exhaustive = lit_config.params.get(
    "exhaustive", os.environ.get("KSC_EXHAUSTIVE_TESTS", "0")
)
config.environment["KSC_EXHAUSTIVE_TESTS"] = (
    "0" if exhaustive in ("", "0") else "1"
)
