"""The grader's cache (graders.cache): keyed by everything that changes an artefact, checked before every use.

Each kind of cached artefact is truncated, corrupted, replaced by another interpreter's bytecode, handed to
another owner or opened to other users; the next grading is right (the entry rebuilt), or, when the cache cannot
be built at all, a grader fault: never a silently lower score.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from graders import cache
from graders.baseline import mutant_runs
from graders.grade import GradeOptions, grade_submission
from graders.spec import load_problems

PROBLEM, FILE = "forward", "minitorch/forward.py"


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory):
    """A cache of its own (these tests break it on purpose), warmed by one grading."""
    root = tmp_path_factory.mktemp("cache")
    before = os.environ.get("AUTOGRADE_CACHE")
    os.environ["AUTOGRADE_CACHE"] = str(root)
    cache.forget_verified()
    sub = root.parent / "submission"
    (sub / FILE).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "reference" / FILE, sub / FILE)
    first = _grade(sub)
    assert first.fault is None and first.score == first.max_score
    _mutants()  # a grading without unnamed failures never asks for them: built here, to be broken below
    yield sub
    cache.forget_verified()
    if before is None:
        os.environ.pop("AUTOGRADE_CACHE", None)
    else:
        os.environ["AUTOGRADE_CACHE"] = before


def _grade(sub: Path):
    (problem,) = grade_submission(sub, GradeOptions(offering="all", problems=[PROBLEM])).problems
    return problem


def _mutants():
    """The problem's instructor mutants' runs (read from the cache, or rebuilt): each must have run."""
    (spec,) = load_problems(only=[PROBLEM])
    runs = mutant_runs(spec)
    assert runs and all(run.load_error is None and run.fault is None for _, _, run in runs)
    return runs


def _one(pattern: str) -> Path:
    found = sorted(cache.cache_root().glob(pattern))
    assert found, pattern
    return found[0]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: max(1, path.stat().st_size // 2)])


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))


def _other_magic(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[0:2] = (int.from_bytes(data[0:2], "little") - 10).to_bytes(2, "little")  # 3.10's magic is 3439, 3.11's 3495
    path.write_bytes(bytes(data))


def _edit_run(path: Path) -> None:
    """Valid JSON that is not what was measured: the first number of the document moved (its header kept)."""
    header, _, body = path.read_text().partition("\n")
    i = next(i for i, c in enumerate(body) if c.isdigit() and body[i - 1] in " [")
    path.write_text(header + "\n" + body[:i] + str((int(body[i]) + 1) % 10) + body[i + 1:])


CORRUPTIONS = {
    "stack bytecode truncated": ("stacks/forward/minitorch/*.pyc", _truncate),
    "stack bytecode of another interpreter": ("stacks/forward/minitorch/*.pyc", _other_magic),
    "stack source edited": ("stacks/forward/minitorch/operators.py", _flip_a_byte),
    "stack manifest removed": ("stacks/forward/.manifest.json", Path.unlink),
    "harness removed": ("child/harness.py", Path.unlink),
    "probes truncated": ("probes/forward/probes*", _truncate),
    "reference run truncated": ("runs/forward/reference-*.json", _truncate),
    "reference run edited": ("runs/forward/reference-*.json", _edit_run),
    "mutant run emptied": ("runs/forward/mutant-*.json", lambda p: p.write_text("")),
    "stack file writable by others": ("stacks/forward/minitorch/operators.py", lambda p: p.chmod(0o666)),
    "reference run writable by others": ("runs/forward/reference-*.json", lambda p: p.chmod(0o666)),
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_a_corrupt_artefact_is_rebuilt_and_the_grade_is_right(private_cache, how):
    pattern, corrupt = CORRUPTIONS[how]
    target = _one(pattern)
    corrupt(target)
    problem = _grade(private_cache)
    assert problem.fault is None and problem.score == problem.max_score, (how, problem.fault)
    _mutants()  # and a grading that needs them gets them right
    assert not list(cache.cache_root().rglob("*.discarded-*")), "what was moved aside is deleted"


def test_a_foreign_owner_is_not_trusted(private_cache):
    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    target = _one("stacks/forward/minitorch/*.pyc")
    os.chown(target, 65534, 65534)
    assert "owned by uid 65534" in cache.folder_problem(target.parent.parent)
    problem = _grade(private_cache)
    assert problem.fault is None and problem.score == problem.max_score
    assert all(p.stat().st_uid == os.getuid() for p in _one("stacks/forward").rglob("*"))


def test_a_cache_that_cannot_be_built_is_a_grader_fault_and_a_later_grading_recovers(private_cache):
    stacks = cache.cache_root() / "stacks"
    shutil.rmtree(stacks)
    stacks.write_text("a file where the stacks folder should be: nothing can be built under it")
    try:
        problem = _grade(private_cache)
        assert problem.fault and "could not be built" in problem.fault, problem.fault
        assert problem.score == 0
    finally:
        stacks.unlink()
    problem = _grade(private_cache)
    assert problem.fault is None and problem.score == problem.max_score


def test_the_runtime_key_names_the_interpreter_numpy_and_platform(monkeypatch):
    facts = cache.runtime_facts()
    assert set(facts) >= {"implementation", "python", "magic", "numpy", "platform"}
    key = cache.runtime_key()
    assert key.startswith(facts["cache_tag"])
    cache.runtime_key.cache_clear()
    try:
        for name in ("magic", "numpy", "platform"):
            monkeypatch.setattr(cache, "runtime_facts", lambda name=name: {**facts, name: "other"})
            assert cache.runtime_key() != key, name
            cache.runtime_key.cache_clear()
    finally:
        monkeypatch.undo()
        cache.runtime_key.cache_clear()
    assert cache.runtime_key() == key and cache.cache_root().name == key


def test_a_trusted_run_that_failed_is_not_kept(tmp_path, monkeypatch):
    """A reference run whose probe timed out at a busy moment, or a mutant run the machine broke, raises a grader
    fault once and is run again by the next grading; kept, it made every later grading of the problem a grader
    fault until someone cleared the cache by hand. A failed run an older grader left in the cache is run again too.
    A mutant's own failing probes are its bug: kept."""
    import graders.baseline as baseline
    from graders.faults import GraderFault
    from graders.results import ChildRun, ProbeOutcome

    monkeypatch.setenv("AUTOGRADE_CACHE", str(tmp_path / "cache"))
    cache.forget_verified()
    (spec,) = load_problems(only=[PROBLEM])
    timed_out = ChildRun({"product": ProbeOutcome("product", "missing", error_message="timed out after 10 s")})
    good = ChildRun({"product": ProbeOutcome("product", "ok", value=[1.0])})
    broken = ChildRun({"product": ProbeOutcome("product", "ok", value=[1.0])}, machine=["the machine failed"])
    buggy = ChildRun({"product": ProbeOutcome("product", "error", error_type="ValueError")})
    runs = []
    monkeypatch.setattr(baseline, "_fresh_run", lambda *args, **kwargs: runs.pop(0))

    runs[:] = [timed_out, good]
    with pytest.raises(GraderFault, match=r"reference run of problem 'forward' failed.*not cached"):
        baseline.reference_run(spec)
    assert baseline.reference_run(spec).outcomes["product"].value == [1.0] and not runs

    name = baseline._run_name(spec, "mutant-x", 2026)
    runs[:] = [broken, buggy]
    with pytest.raises(GraderFault, match="the machine failed"):
        baseline._cached_run(spec, "mutant-x", 2026, None)
    assert baseline._cached_run(spec, "mutant-x", 2026, None).outcomes["product"].status == "error" and not runs

    cache.write_sealed(cache.cache_root() / name, baseline.run_to_json(broken))  # as an older grader kept it
    cache.forget_verified()
    runs[:] = [buggy]
    assert baseline._cached_run(spec, "mutant-x", 2026, None).outcomes["product"].status == "error" and not runs


def test_an_entry_another_process_is_building_is_passed_over_without_waiting(tmp_path, monkeypatch):
    """`cached_json(wait=False)`: None at once while another holder has the entry's lock (nothing built); once the
    lock is free, built and kept, and read back without building again."""
    import fcntl

    monkeypatch.setenv("AUTOGRADE_CACHE", str(tmp_path))
    built = []
    lock = cache.cache_root() / "locks" / "runs-x-mutant.json"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+") as other:  # another process's open file: its own lock
        fcntl.flock(other, fcntl.LOCK_EX)
        assert cache.cached_json("runs/x/mutant.json", lambda: built.append(1) or {"v": 1}, wait=False) is None
        fcntl.flock(other, fcntl.LOCK_UN)
    assert built == []
    assert cache.cached_json("runs/x/mutant.json", lambda: built.append(1) or {"v": 1}, wait=False) == {"v": 1}
    assert cache.cached_json("runs/x/mutant.json", lambda: built.append(1) or {"v": 2}, wait=False) == {"v": 1}
    assert built == [1]


def test_a_batch_worker_builds_mutants_one_at_a_time_passing_over_those_being_built(monkeypatch):
    """With one core's share (a batch worker), the mutants' runs are built one at a time: one another process is
    building is passed over and read when done; when all that are left are being built elsewhere, the first is
    waited for. The results keep the listed order."""
    import graders.baseline as baseline

    problem = load_problems(only=["autodiff"])[0]
    mutants = baseline.mutant_files(problem)[:4]
    busy = {mutants[1]: 1, mutants[3]: 3}  # being built elsewhere for that many more tries
    calls = []

    def or_none(problem, path, seed, wait):
        calls.append((path.stem, wait))
        if not wait and busy.get(path, 0) > 0:
            busy[path] -= 1
            return None
        return path.stem, "m", None

    monkeypatch.setattr(baseline, "_mutant_run_or_none", or_none)
    monkeypatch.setattr(baseline, "mutant_files", lambda problem: mutants)
    monkeypatch.setattr(baseline, "core_share", lambda: 1)
    got = baseline.mutant_runs(problem)
    assert [name for name, _, _ in got] == [m.stem for m in mutants]
    names = [m.stem for m in mutants]
    assert calls == [(names[0], False), (names[1], False), (names[2], False), (names[3], False),  # 1 and 3 busy
                     (names[1], False), (names[3], False),  # 1 done; 3 busy again
                     (names[3], False),  # still busy, and all that is left: waited for
                     (names[3], True)]


def test_a_pool_worker_gets_its_share_of_the_cores(monkeypatch):
    from graders import workers

    monkeypatch.setattr(workers, "cores", lambda: 2)
    monkeypatch.setattr(workers, "_SHARE", None)
    assert workers.core_share() == 2  # a lone grading: every core
    monkeypatch.setattr(workers, "die_with_parent", lambda parent: None)
    workers.worker_start(os.getpid(), 2)
    assert workers.core_share() == 1
    workers.worker_start(os.getpid(), 5)
    assert workers.core_share() == 1
