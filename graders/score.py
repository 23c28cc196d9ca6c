"""Score stage: judge every test of a problem, name misconceptions, add up points.

Results are typed (`graders.results`); rendering them is the job of `record` and `reports`.
"""

from __future__ import annotations

import gc
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import paths
from .faults import GraderFault, inject
from .judge import Verdict, get_judge, judge_outcome, same_outcome, telling_outcome
from .results import ChildRun, ProbeOutcome, ProblemResult, TestResult
from .spec import ProblemSpec, TestSpec

#: a mutant's misconception is named when the submission reproduces all the mutant's failures,
#: or at least this many of them (a single coincidental match names nothing)
MIN_MATCHES = 2


@lru_cache(maxsize=1)
def _solution_lines() -> frozenset:
    """Every distinctive line (16+ characters) inside a solution block of the reference."""
    found = set()
    for path in paths.REFERENCE.rglob("*.py"):
        inside = False
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if text == "# BEGIN SOLUTION":
                inside = True
            elif text == "# END SOLUTION":
                inside = False
            elif inside and len(text) >= 16:
                found.add(text)
    return frozenset(found)


def redact(text: str) -> str:
    """Withhold a message that quotes reference solution code (other problems' solutions run in the
    sandbox as bytecode; a submission must not get their source back through its report)."""
    if any(line in text for line in _solution_lines()):
        return "[message withheld: it quotes the reference solution]"
    return text


def policy_message(path: str, modules: Sequence[str]) -> str:
    """Why a problem scores 0 when its graded code uses an autodiff library."""
    return (
        f"policy violation: {path} uses {', '.join(modules)}; this assignment is about writing autodiff "
        "yourself, so using an autodiff library in graded code scores 0 for this problem (importing one, "
        "as the course's starter does, costs nothing)"
    )


#: what a student reads for a problem the grader failed on (graders.faults): not their grade
FAULT_MESSAGE = ("not graded: the grader failed on this problem, not your code; course staff have been told and "
                 "will regrade it (these points are not part of your score yet)")


def failed_problem(spec: ProblemSpec, message: str, fault: Optional[str] = None) -> ProblemResult:
    """Every test at 0 with the same message (missing or unusable file, or a fault)."""
    tests = [
        TestResult(spec.id, t.id, t.name, t.kind, t.points, 0.0, message) for t in spec.tests
    ]
    return ProblemResult(spec.id, spec.title, tests, errors=[message], fault=fault)


@dataclass
class _Evidence:
    """What one instructor mutant explains: the tests it fails with telling numbers (its signature;
    a crash is no part of it) and those of them the student reproduces."""

    misconception: str
    fails: set = field(default_factory=set)
    matches: set = field(default_factory=set)
    #: tests of the signature the student fails with telling numbers of its own that are not the mutant's
    contradicts: set = field(default_factory=set)

    @property
    def confirmed(self) -> bool:
        """The student reproduces the mutant's whole failure signature, or enough of it, and the rest of the
        signature does not mostly say otherwise (a name must fit the submission's evidence, not one graph:
        a bug that coincides with the mutant on two tests and gives numbers of its own on ten is another bug)."""
        return bool(self.matches) and (self.matches >= self.fails or len(self.matches) >= MIN_MATCHES) \
            and len(self.contradicts) <= len(self.matches)


def _evidence(
    spec: ProblemSpec,
    judges: Dict[str, Any],
    run: ChildRun,
    reference: ChildRun,
    mutants: Sequence[Tuple[str, str, ChildRun]],
    failing: Sequence[str],
) -> List[_Evidence]:
    """For each mutant, the tests it fails and those of the student's failures it reproduces."""
    found = []
    for _, misconception, mutant_run in mutants:
        ev = _Evidence(misconception)
        for test in spec.tests:
            mutant = mutant_run.outcomes.get(test.probe)
            if mutant is None:
                continue
            ref = reference.outcomes[test.probe]
            if _judge_safely(test, judges[test.id], mutant, ref, spec.swap.file, spec.id).passed:
                continue
            if not telling_outcome(judges[test.id], mutant, ref, test.options):
                continue  # a crash, or no numbers of its own: nothing a submission could reproduce as evidence
            ev.fails.add(test.id)
            if test.id not in failing:
                continue
            if _reproduces(judges[test.id], run.outcomes[test.probe], mutant, test.options, ref):
                ev.matches.add(test.id)
            elif _telling(judges[test.id], run.outcomes[test.probe], ref, test.options):
                ev.contradicts.add(test.id)
        found.append(ev)
    return found


def _telling(fn: Any, student: ProbeOutcome, ref: ProbeOutcome, options: Dict[str, Any]) -> bool:
    """`telling_outcome` of the student's own data: wrong numbers of its own (never a crash)."""
    try:
        return telling_outcome(fn, student, ref, options)
    except Exception:
        return False


def _reproduces(fn: Any, student: ProbeOutcome, mutant: ProbeOutcome, options: Dict[str, Any],
                ref: ProbeOutcome) -> bool:
    """`same_outcome`, where student data the comparison cannot read is no evidence (never a grader fault)."""
    try:
        return same_outcome(fn, student, mutant, options, ref)
    except Exception:
        return False


def _judge_twice_on_memory_error(fn: Any, student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any],
                                 path: str) -> Verdict:
    """judge_outcome; once more after a MemoryError (the machine may have been short of memory for a moment)."""
    try:
        return judge_outcome(fn, student, reference, options, path)
    except MemoryError:
        gc.collect()
        return judge_outcome(fn, student, reference, options, path)


def _judge_safely(test: TestSpec, fn: Any, student: ProbeOutcome, reference: ProbeOutcome, path: str,
                  problem: str = "") -> Verdict:
    """Judge; a judge that chokes on the student's data fails the test (it is a grader fault only
    if the same judge cannot even accept the reference's own data), and asks a TA to look (`review`): whether the
    data was malformed or the judge has a bug only a person can tell. A MemoryError is judged once
    more first (it may be the machine's moment, not the data). An interpreter SystemError or a grader fault is never
    the student's data: it propagates."""
    try:
        inject("judge", problem)
        return _judge_twice_on_memory_error(fn, student, reference, test.options, path)
    except (GraderFault, SystemError):
        raise
    except Exception as exc:
        try:
            sane = judge_outcome(fn, reference, reference, test.options, path).passed
        except Exception:
            sane = False
        if not sane:
            raise
        what = f"{type(exc).__name__}: {str(exc)[:200]}"
        return Verdict(0.0, f"the probe's result could not be read ({what}); course staff will check it by hand",
                       review=f"the grader could not judge this submission's result ({what}) and scored the test 0: "
                              "check it by hand (a malformed result, or a grader bug)")


def score_problem(
    spec: ProblemSpec,
    run: ChildRun,
    reference: ChildRun,
    mutants: Callable[[], Sequence[Tuple[str, str, ChildRun]]],
    local_judges: Dict[str, Any],
) -> ProblemResult:
    """Judge each test of `spec` on the student's run against the reference run; `mutants()` (the instructor
    mutants' runs) is asked for only when some failure has no misconception of its test's own."""
    if run.policy:
        return failed_problem(spec, policy_message(spec.swap.file, run.policy))
    judges = {test.id: get_judge(test.judge, local_judges) for test in spec.tests}
    judged = []
    rules: Counter = Counter()
    load_error = None
    if run.load_error:
        err = run.load_error
        where = f"{spec.swap.file}:{err.get('line')}" if err.get("line") else spec.swap.file
        load_error = f"importing {where} failed: {err.get('type')}: {err.get('message')}"
    for test in spec.tests:
        student = run.outcomes[test.probe]
        if load_error:
            verdict = Verdict(0.0, load_error)
        else:
            verdict = _judge_safely(test, judges[test.id], student, reference.outcomes[test.probe], spec.swap.file,
                                    spec.id)
        if not verdict.passed and verdict.misconception:
            rules[verdict.misconception] += 1
            for also in verdict.also:  # every misconception the test's data shows is named, not only the first
                if also != verdict.misconception:
                    rules[also] += 1
        judged.append((test, verdict, student.seconds))
    failing = [t.id for t, v, _ in judged if not v.passed and not v.misconception]
    confirmed = [] if load_error or not failing else [
        e for e in _evidence(spec, judges, run, reference, mutants(), failing) if e.confirmed]
    found = Counter(rules)
    for ev in confirmed:
        found[ev.misconception] += len(ev.matches)
    tests = []
    for test, verdict, seconds in judged:
        misconception = None
        if not verdict.passed:
            misconception = verdict.misconception or next(
                (ev.misconception for ev in confirmed if test.id in ev.matches), None
            )
        tests.append(
            TestResult(
                spec.id, test.id, test.name, test.kind, test.points,
                test.points * max(0.0, min(1.0, verdict.fraction)),  # exact: totals are rounded, not tests
                redact(verdict.message), misconception, seconds, verdict.figure,
                review=redact(verdict.review) if verdict.review else None,
            )
        )
    errors = [redact(load_error)] if load_error else []
    if run.missing_symbols:
        errors.append(f"not defined in {spec.swap.file}: {', '.join(run.missing_symbols)}")
    return ProblemResult(
        spec.id, spec.title, tests,
        misconceptions=[m for m, _ in found.most_common()],
        errors=errors, notes=[redact(n) for n in run.notes], seconds=run.seconds,
        peak_mib=None if run.peak_mib is None else round(run.peak_mib, 1), oom_kills=run.oom_kills,
    )
