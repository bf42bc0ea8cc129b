"""The environment of tests in a sanitizer build (docs/testing.md,
"Sanitizers"), for both lit configurations: the regression tests'
(test/lit.cfg.py) and the unit tests' (test/Unit/lit.cfg.py).

A report stops the program with SIGABRT, which fails the test even where
it expects a non-zero exit (LLVM's `not` fails on a crash). LLVM's
allocators poison memory from inlined header code that Debian's
uninstrumented libraries never unpoison: without allow_user_poisoning=0
that reads as use-after-poison. The user's own ASAN_OPTIONS/UBSAN_OPTIONS
come after ours, so they win.
"""

import os

OPTIONS = [
    ("ASAN_OPTIONS", "abort_on_error=1:allow_user_poisoning=0"),
    ("UBSAN_OPTIONS", "abort_on_error=1:halt_on_error=1:print_stacktrace=1"),
]


def set_sanitizer_environment(config):
    """Sets the sanitizers' options in `config.environment` when the build
    is a sanitizer build (config.ksc_sanitize), and the lit feature
    `sanitizer`."""
    if not config.ksc_sanitize:
        return
    for name, options in OPTIONS:
        user = os.environ.get(name)
        config.environment[name] = options + (":" + user if user else "")
    config.environment["ASAN_SYMBOLIZER_PATH"] = os.path.join(
        config.llvm_tools_dir, "llvm-symbolizer")
    config.available_features.add("sanitizer")
