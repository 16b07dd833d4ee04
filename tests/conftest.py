"""Shared pytest configuration.

``--fuzz-long`` (or ``TILEMEM_FUZZ_LONG=1``) turns the robustness suites (fuzzing,
property tests, isolation) from their CI size into long runs: >= 100,000 mutated inputs,
thousands of generated programs and solves.  The CI-sized runs use fixed seeds so that
every run checks the same inputs.
"""
from __future__ import annotations

import os
import signal

import pytest


@pytest.fixture(autouse=True, scope="session")
def ctrl_c_as_a_terminal_sends_it():
    """Tests of Ctrl-C (SIGINT to tilemem in-process, to a batch, in a pty) need SIGINT
    handled.  A suite started in the background of a non-interactive shell (``pytest &``,
    ``nohup``) has it ignored, and every process it starts inherits that: tilemem then
    rightly ignores Ctrl-C too, and those tests failed.  Python's own handler is put back
    for the session (a handler, unlike SIG_IGN, is reset to the default by exec)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        yield
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        yield


def pytest_addoption(parser):
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="long robustness runs (>= 100,000 fuzzed inputs, thousands of "
                          "generated programs); same as TILEMEM_FUZZ_LONG=1")
    parser.addoption("--corpus-random", choices=("sample", "all"), default="sample",
                     help="tests/test_corpus_random.py: a fixed sample of "
                          "../shared/corpus-random (default) or every case; same as "
                          "TILEMEM_CORPUS_RANDOM=all")
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the expected files of tests/data/solve from tilemem's "
                          "current output (tests/test_goldens.py)")


def pytest_configure(config):
    # every test solves afresh: the result cache (tilemem.resultcache) would answer a
    # test from what another test stored, and tests that change tilemem's behaviour
    # in process would get the unchanged answer; tests/test_resultcache.py turns it on
    os.environ["TILEMEM_NO_RESULT_CACHE"] = "1"
    if config.getoption("--fuzz-long", default=False):
        # test modules read the flag when they are imported (hypothesis settings)
        os.environ["TILEMEM_FUZZ_LONG"] = "1"
    config.addinivalue_line("markers", "fuzz_long: only meaningful with --fuzz-long")
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:          # the property tests skip themselves
        return
    common = dict(deadline=None, database=None, print_blob=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])
    # CI: the same examples every run; long runs explore new ones.
    settings.register_profile("tilemem-ci", derandomize=True, **common)
    settings.register_profile("tilemem-long", derandomize=False, **common)
    settings.load_profile("tilemem-long" if fuzz_long() else "tilemem-ci")


def fuzz_long() -> bool:
    return os.environ.get("TILEMEM_FUZZ_LONG", "") not in ("", "0")
