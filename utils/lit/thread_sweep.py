"""The thread sweep of test/Run and test/Grad, which their lit.local.cfg
files turn on."""

import os
import sys


def run_at_thread_counts(config):
    """Makes every ksc-run of a directory's tests run at 1 OS thread and at
    the numbers of config.ksc_test_threads (test/lit.cfg.py), printing the
    same at each (ksc-run-threads.py): for launches whose results the
    language promises not to depend on them."""
    here = os.path.dirname(os.path.abspath(__file__))
    wrapper = os.path.join(here, "ksc-run-threads.py")
    ksc_run = os.path.join(config.ksc_tools_dir, "ksc-run")
    config.substitutions = [
        (key, value.replace(ksc_run, "%s %s %s" % (sys.executable, wrapper,
                                                   ksc_run)))
        if isinstance(value, str) and value.endswith(ksc_run)
        else (key, value)
        for key, value in config.substitutions
    ]
    config.environment["KSC_TEST_THREADS"] = config.ksc_test_threads
