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
