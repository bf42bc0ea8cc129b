# -*- Python -*-
# lit configuration of the ksc unit tests: runs every GoogleTest binary
# named *Tests under build/unittests.

import os

import lit.formats

config.name = "ksc-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.ksc_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
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
