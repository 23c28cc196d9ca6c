"""Shared fixtures: one grader cache per test run (reference and mutant runs are computed once, also
across pytest-xdist workers), and `exclusive` tests that run while no other test does.

Tests marked `exclusive` measure the whole host (memory it lost, kernel slab it grew); under
`pytest -n 2` another worker's grading would count as theirs. Every other test holds a shared lock
for its whole run (set-up and tear-down included, so module fixtures that grade are covered); an
exclusive test takes the lock exclusively. A gate lock in front keeps exclusive tests from starving.
"""

import fcntl
import os
import site
import subprocess
import sys
import sysconfig
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The suite starts hundreds of Python processes (the CLI's runs, pytest in template copies, fresh venvs) that
#: import the same project modules, and its workers import every test module: each is compiled once and its
#: bytecode read after, as Python does by default, also where the environment asks for no bytecode
#: (PYTHONDONTWRITEBYTECODE, set on some CI machines: there every process compiled the grader again, about 10 s
#: of the suite's 4 minutes on two cores). Bytecode files are ignored by git and by the grader's version hash
#: (graders.paths.files_under); sandboxed children and template copies still write none (they set the variable).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def venv_seeing_these_packages(dest: Path) -> Path:
    """A new venv at `dest` that also sees this interpreter's site-packages (its pip, setuptools, numpy, ...),
    also when this interpreter is itself a venv: `--system-site-packages` would show the *base* interpreter's,
    which may have no setuptools or wheel at all. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    python = dest / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    dirs = dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]])
    lines = "".join(f"import site; site.addsitedir({d!r})\n" for d in dirs)
    (Path(purelib) / "outer-site-packages.pth").write_text(lines, encoding="utf-8")
    return python


def counts_all_cpu() -> bool:
    """Whether the child runs in a control group that counts all of its CPU (the strong level): only there is waiting
    credited (graders.probe._counted); the run log's CPU figures (graders.runlog)."""
    from graders import cgroups, sandbox

    if not sandbox.capabilities().strong:
        return False
    group = cgroups.create(64, 8)
    if group is None:
        return False
    try:
        return group.cpu_seconds() is not None
    finally:
        group.remove()


needs_cpu_accounting = pytest.mark.skipif(not counts_all_cpu(), reason="needs the strong sandbox with a control "
                                          "group that counts CPU (elsewhere no wait is credited and runs have no "
                                          "CPU figure)")


def _lock_dir():
    """The folder where this xdist run's workers share their locks (None when pytest runs in one process)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return None
    folder = Path(tempfile.gettempdir()) / f"autograde-tests-{run}"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session", autouse=True)
def grader_cache(tmp_path_factory):
    """Point the grader at one fresh cache for the run (shared by xdist workers) unless the caller set
    AUTOGRADE_CACHE; the grader locks what it builds, so workers build each artefact once."""
    if "AUTOGRADE_CACHE" not in os.environ:
        base = tmp_path_factory.getbasetemp()
        cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "autograde-cache"
        cache.mkdir(exist_ok=True)
        os.environ["AUTOGRADE_CACHE"] = str(cache)
    yield Path(os.environ["AUTOGRADE_CACHE"])


@contextmanager
def _flock(path: Path, mode: int):
    with open(path, "a+") as handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def _turn(exclusive: bool):
    """Hold the run's test lock: shared for ordinary tests, exclusive for `exclusive` ones."""
    root = _lock_dir()
    if root is None:
        yield
        return
    gate, main = root / "exclusive-gate.lock", root / "exclusive.lock"
    if exclusive:
        with _flock(gate, fcntl.LOCK_EX), _flock(main, fcntl.LOCK_EX):
            yield
        return
    with _flock(gate, fcntl.LOCK_EX):
        handle = open(main, "a+")
        fcntl.flock(handle, fcntl.LOCK_SH)
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    with _turn(exclusive=item.get_closest_marker("exclusive") is not None):
        yield


#: the files that take longest (fresh venvs, whole classes graded, twenty gradings). xdist (`--dist loadgroup`)
#: hands out the files with the most tests first, so this order only decides among files of as many tests: the
#: longest files of one test (test_python310, test_determinism) still come after every larger file, but before the
#: spread cases, which fill both workers' ends. (`--no-loadscope-reorder` would keep this order from the start; tried,
#: it builds both autodiff cold caches, the session's and test_python310's for 3.10, at the same moment, and in one
#: of its runs valid solutions' time ratios went over the bound in that crowd: not used.)
HEAVY_FIRST = ("test_python310.py", "test_hostile_probes.py", "test_determinism.py", "test_batch.py", "test_hostile.py",
               "test_browser.py", "test_unprivileged.py", "test_check_problems.py", "test_student_template.py",
               "test_grader_mutants.py")


#: files whose tests are independent gradings: spread one test at a time over the workers, run last so that they
#: fill the workers' ends (every other file runs whole on one worker: its module fixtures are computed once)
SPREAD_LAST = ("test_problem_cases.py",)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks (`--dist loadgroup`)
def pytest_collection_modifyitems(config, items):
    """Heaviest files first, the spread files last (a stable sort: the order inside a file is kept); every test
    of a file not spread is grouped with its file."""
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    last = len(HEAVY_FIRST) + 1
    items.sort(key=lambda item: last if item.path.name in SPREAD_LAST else rank.get(item.path.name, len(HEAVY_FIRST)))
    for item in items:
        if item.path.name not in SPREAD_LAST:
            item.add_marker(pytest.mark.xdist_group(item.path.name))
