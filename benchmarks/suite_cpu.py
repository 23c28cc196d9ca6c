"""A pytest plugin for benchmarks/suite.py: each test's CPU, as its worker process's kernel counted it.

Loaded with `-p suite_cpu` (benchmarks/ on PYTHONPATH) and SUITE_CPU_LOG naming a file: after every test
phase (setup, call, teardown) it appends one JSON line with the test's id, the phase, its wall seconds and the
CPU seconds of the worker process (all its threads) and of the children it waited for in that phase (a
sandboxed grading's bubblewrap tree, a CLI run, pip in a venv) (`resource.getrusage`). A daemon a test left
behind is not counted; a fixture's work is counted in the phase of the first test that needed it.
"""

from __future__ import annotations

import os
import resource
import time

import pytest

from graders.runlog import append_line

LOG_ENV = "SUITE_CPU_LOG"


def _cpu() -> tuple:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime, time.monotonic()


def _write(item: pytest.Item, phase: str, before: tuple) -> None:
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    own, children, wall = (after - start for after, start in zip(_cpu(), before))
    append_line(path, {"test": item.nodeid, "phase": phase, "wall": round(wall, 3), "own": round(own, 3),
                       "children": round(children, 3)})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    before = _cpu()
    yield
    _write(item, "setup", before)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    before = _cpu()
    yield
    _write(item, "call", before)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    before = _cpu()
    yield
    _write(item, "teardown", before)
