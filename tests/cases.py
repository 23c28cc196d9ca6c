"""A problem's own test cases, found in its folder: `problems/<id>/valid/` and `problems/<id>/buggy/`.

A case is one of

* `<name>.py`, a **delta**: the definitions the case changes, appended to the reference's copy of the
  problem's student file (`[swap] file` of problem.toml), like `mutants/` (later definitions override);
* `<name>/`, a **whole submission** (its files at their submission paths), only where the case is about
  the whole file (what sits at module level, a different starter's layout, ...).

A delta whose change is a few lines inside a long given function (a training loop with one line more) says
so with `EDITS = [("<text of the reference>", "<its replacement>"), ...]`: each text must occur exactly once
in the reference's file, and is replaced there before the rest of the delta is appended. A change to the given
code then reaches every case, and an edit that no longer applies fails naming the case.

A delta that is another case of the same problem with one thing changed (a buggy case that is a valid one with
its backward pass broken) says so with `BASE = "<kind>/<name>"`: it is composed from that case's composed file
instead of the reference's (its EDITS apply to that text, its definitions are appended after it), so the code
the two share is written once. Only the code comes from the base: what the case must get is its own.

What the case must get is written in it as module-level literals, read without running it (in a whole
submission: in its copy of the problem's student file):

    EXPECT = "<id>" | None     buggy cases (required): that misconception is named (None: none is named)
    LABELS = ["<id>", ...]     the misconceptions named, exactly (instead of EXPECT)
    OFFERING = "f25"           the offering graded with (default: the first one that grades the problem)
    PASSES = ["<test id>", ...] / FAILS = [...]   hidden tests that must pass / fail
    SCORE = 18.0               the exact score
    MESSAGES = {"<test id>": "<text>"}            text that test's message must contain
    TAGS = {"<test id>": "<misconception id>"}    the misconception that test must carry
    EDITS = [(old, new), ...]  text replacements in the reference's file (above)
    BASE = "<kind>/<name>"     the delta case whose composed file this one is appended to (above), not inherited
    LOAD_ERROR = True          the case is about a file that cannot be loaded (else loading must succeed:
                               a delta that breaks the composed file would lose points for the wrong reason)

A valid case gets full marks and no label unless it says otherwise. Adding a case is adding a file: the
suite finds every problem's cases here (tests/test_problem_cases.py).

`graded(case)` grades a case once per test run: results are kept on disk under the run's grader cache,
keyed by the submission's bytes, the grader version and the offering, so pytest-xdist workers and
several test files share them.
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import os
import pickle
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from graders import paths
from graders.baseline import appended
from graders.grade import GradeOptions, grade_submission
from graders.offering import grading_offering
from graders.results import ProblemResult
from graders.spec import ProblemSpec, load_problems
from graders.version import grader_version

KINDS = ("valid", "buggy")
FIELDS = ("EXPECT", "LABELS", "OFFERING", "PASSES", "FAILS", "SCORE", "MESSAGES", "TAGS", "LOAD_ERROR", "EDITS",
          "BASE")
_MISSING = object()


@dataclass(frozen=True)
class Case:
    """One valid or buggy case of a problem, and what it must get."""

    problem: ProblemSpec
    kind: str
    path: Path
    expect: Any = _MISSING
    labels: Optional[frozenset] = None
    offering: Optional[str] = None
    passes: frozenset = frozenset()
    fails: frozenset = frozenset()
    score: Optional[float] = None
    messages: Dict[str, str] = field(default_factory=dict)
    tags: Dict[str, str] = field(default_factory=dict)
    load_error: bool = False
    edits: Tuple[Tuple[str, str], ...] = ()
    base: Optional[str] = None

    @property
    def name(self) -> str:
        return self.path.stem if self.path.is_file() else self.path.name

    @property
    def id(self) -> str:
        return f"{self.problem.id}/{self.kind}/{self.name}"

    @property
    def student_file(self) -> Path:
        """The file that holds the case's code (and its expectations)."""
        return self.path if self.path.is_file() else self.path / self.problem.swap.file

    def files(self) -> Dict[str, bytes]:
        """The submission: {path relative to its root: bytes}."""
        if self.path.is_dir():
            return {p.relative_to(self.path).as_posix(): p.read_bytes()
                    for p in sorted(self.path.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}
        return {self.problem.swap.file: self.composed().encode("utf-8")}

    def composed(self, seen: Tuple[str, ...] = ()) -> str:
        """A delta case's student file: its base's text (the reference's file, or with BASE that case's composed
        file) with its EDITS applied and its own definitions appended."""
        if self.base is None:
            where = f"reference/{self.problem.swap.file}"
            text = (paths.REFERENCE / self.problem.swap.file).read_text(encoding="utf-8")
        else:
            kind, _, name = self.base.partition("/")
            path = self.problem.folder / kind / f"{name}.py"
            assert kind in KINDS and path.is_file(), f"{self.path}: BASE: no delta case {self.base!r} of {self.problem.id}"
            assert self.id not in seen, f"{self.path}: BASE: a cycle: {' -> '.join(seen + (self.id,))}"
            text, where = _case(self.problem, kind, path).composed(seen + (self.id,)), f"case {self.base}"
        for old, new in self.edits:
            found = text.count(old)
            assert found == 1, f"{self.path}: EDITS: {old[:60]!r} occurs {found} times in {where}"
            text = text.replace(old, new)
        return appended(text, f"case {self.id}", self.path.read_text(encoding="utf-8"))

    def delta(self) -> str:
        """A delta case as text to append to a file that already holds the reference's (several cases in one
        file): its own file, or with EDITS or a BASE the top-level statements of its composed file the reference
        lacks."""
        assert self.path.is_file(), f"{self.id} is a whole submission, not a delta"
        if not self.edits and self.base is None:
            return self.path.read_text(encoding="utf-8")
        reference = (paths.REFERENCE / self.problem.swap.file).read_text(encoding="utf-8")
        composed = self.composed()
        lines = composed.splitlines(keepends=True)
        parts = []
        for node in ast.parse(composed).body:
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            parts.append("".join(lines[start - 1:node.end_lineno]))
        return "\n\n".join(part for part in parts if part not in reference)

    def build(self, root: Path) -> Path:
        """Write the submission under `root` (a new folder) and return it."""
        for rel, data in self.files().items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return root


def expectations(path: Path) -> Dict[str, Any]:
    """The module-level `NAME = <literal>` assignments of FIELDS in a case file (never executed)."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and getattr(node.targets[0], "id", None) in FIELDS:
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found


def _case(problem: ProblemSpec, kind: str, path: Path) -> Case:
    case = Case(problem, kind, path)
    values = expectations(case.student_file)
    if kind == "buggy" and "EXPECT" not in values and "LABELS" not in values:
        raise AssertionError(f"{case.student_file}: a buggy case says what it must be told: EXPECT = ... or LABELS = [...]")
    return replace(
        case,
        expect=values.get("EXPECT", _MISSING),
        labels=frozenset(values["LABELS"]) if "LABELS" in values else (frozenset() if kind == "valid" else None),
        offering=values.get("OFFERING"),
        passes=frozenset(values.get("PASSES", ())),
        fails=frozenset(values.get("FAILS", ())),
        score=values.get("SCORE"),
        messages=dict(values.get("MESSAGES", {})),
        tags=dict(values.get("TAGS", {})),
        load_error=bool(values.get("LOAD_ERROR", False)),
        edits=tuple((str(old), str(new)) for old, new in values.get("EDITS", ())),
        base=values.get("BASE"),
    )


@cache
def problem_cases(kinds: Tuple[str, ...] = KINDS, root: Optional[Path] = None) -> Tuple[Case, ...]:
    """Every case of every problem folder under `root` (default `problems/`), in folder order (read once per
    process: the hostile kit and the template's variants look cases up by name many times)."""
    found = []
    for problem in load_problems(root):
        for kind in kinds:
            folder = problem.folder / kind
            entries = sorted(folder.iterdir()) if folder.is_dir() else []
            for path in entries:
                if (path.is_file() and path.suffix == ".py") or (path.is_dir() and path.name != "__pycache__"):
                    found.append(_case(problem, kind, path))
    return tuple(found)


def case_named(case_id: str) -> Case:
    """The case `<problem>/<kind>/<name>`."""
    by_id = {c.id: c for c in problem_cases()}
    assert case_id in by_id, f"no case {case_id}"
    return by_id[case_id]


def _key(case: Case, offering: Optional[str]) -> str:
    digest = hashlib.sha256(f"{grader_version()}\0{case.problem.id}\0{offering}".encode())
    for rel, data in case.files().items():
        digest.update(f"\0{rel}\0".encode())
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()[:32]


def graded(case: Case) -> ProblemResult:
    """The case graded on its problem (in its offering), once per test run and grader version."""
    offering = case.offering or grading_offering(case.problem.id)
    store = Path(os.environ.get("AUTOGRADE_CACHE", tempfile.gettempdir())) / "test-cases"
    store.mkdir(parents=True, exist_ok=True)
    result_file = store / f"{_key(case, offering)}.pickle"
    with open(store / f"{result_file.stem}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker grades it, the other waits and reads
        if result_file.is_file():
            return pickle.loads(result_file.read_bytes())  # noqa: S301 - written by this function, this run
        work = Path(tempfile.mkdtemp(prefix=f"case-{case.name}-"))
        try:
            submission = case.build(work / case.name)
            (result,) = grade_submission(submission, GradeOptions(offering=offering, problems=[case.problem.id])).problems
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if result.fault is None:  # a fault is the grader's, not the case's verdict: never kept
            result_file.write_bytes(pickle.dumps(result))
        return result


def failures(result: ProblemResult) -> List[Tuple[str, Optional[str], str]]:
    return [(t.id, t.misconception, t.message[:200]) for t in result.tests if not t.passed]


def verdict(result: ProblemResult) -> str:
    """The verdict in a few lines (for a check that fails): score, names, every failed test."""
    lines = [f"got {result.score:g} / {result.max_score:g}, named {result.misconceptions or 'nothing'}"
             + (f", errors {result.errors}" if result.errors else "")]
    lines += [f"  failed {t.id} [{t.misconception or '-'}]: {t.message[:160]}" for t in result.tests if not t.passed]
    return "\n".join(lines)


def check(case: Case, result: ProblemResult) -> None:
    """Assert that `result` is what `case` says it must get; a failure names the case's file, what it says it must
    get, and the verdict it got."""
    where, got = case.student_file.relative_to(paths.ROOT), verdict(result)

    def holds(condition: bool, expected: str) -> None:
        assert condition, f"{where}: {expected}\n{got}"

    holds(result.fault is None, f"graded without a grader fault (fault: {result.fault})")
    holds(bool(result.errors) == case.load_error,
          "a file that cannot be loaded (LOAD_ERROR)" if case.load_error else "a composed file that loads")
    by_id = {t.id: t for t in result.tests}
    pinned = set(case.passes) | set(case.fails) | set(case.messages) | set(case.tags)
    holds(pinned <= set(by_id), f"tests that exist: {sorted(pinned - set(by_id))} are not tests of {case.problem.id}")
    named = set(result.misconceptions)
    if case.kind == "valid" and case.score is None and not case.fails:
        holds(result.score == result.max_score and all(t.passed for t in result.tests), "full marks (a valid case)")
    if case.kind == "buggy":
        holds(result.score < result.max_score, "fewer points than full marks (a buggy case)")
    if case.labels is not None:
        holds(named == set(case.labels), f"exactly these misconceptions named: {sorted(case.labels)}")
    elif case.expect is None:
        holds(named == set(), "no misconception named (EXPECT = None: a name that does not fit misleads)")
    elif case.expect is not _MISSING:
        holds(case.expect in named, f"{case.expect!r} named")
        holds(any(t.misconception == case.expect for t in result.tests), f"{case.expect!r} on the tests that show it")
    for test in result.tests:  # a label only on a failed test, and only one the case deserves
        if test.misconception is not None:
            holds(not test.passed, f"no misconception on a passed test ({test.id} carries {test.misconception!r})")
            if case.labels is not None:
                holds(test.misconception in case.labels, f"no label but {sorted(case.labels)} ({test.id})")
    holds(all(by_id[i].passed for i in case.passes), f"these tests passed: {sorted(case.passes)}")
    holds(not any(by_id[i].passed for i in case.fails), f"these tests failed: {sorted(case.fails)}")
    if case.score is not None:
        holds(abs(result.score - case.score) < 1e-6, f"score {case.score:g}")
    for test_id, text in case.messages.items():
        holds(text in by_id[test_id].message, f"{test_id}'s message containing {text!r}: {by_id[test_id].message!r}")
    for test_id, misconception in case.tags.items():
        holds(by_id[test_id].misconception == misconception, f"{test_id} tagged {misconception!r}")
