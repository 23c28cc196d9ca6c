"""Score stage: judge every test of a problem, name misconceptions, add up points.

Results are typed (dataclasses); rendering them is the job of `record` and `reports`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .judge import Verdict, get_judge, judge_outcome, same_outcome
from .probe import ChildRun, ProbeOutcome
from .spec import ProblemSpec, TestSpec


@dataclass
class TestResult:
    """One hidden test's outcome."""

    problem: str
    #: stable id within the problem (from problem.toml)
    id: str
    #: the title shown to students
    name: str
    #: contract kind: gradient, complexity, recursion, accuracy, unit
    kind: str
    max_score: float
    score: float
    #: what was checked and what was found
    message: str
    #: the misconception the output matches, if any
    misconception: Optional[str] = None
    #: seconds the probe took in the sandbox
    seconds: float = 0.0
    #: data for a figure in the report
    figure: Optional[Dict[str, Any]] = None

    @property
    def passed(self) -> bool:
        return self.score >= self.max_score


@dataclass
class ProblemResult:
    """All tests of one problem for one submission."""

    id: str
    title: str
    tests: List[TestResult]
    #: misconception ids found, most evident first
    misconceptions: List[str] = field(default_factory=list)
    #: why the problem could not be graded normally (missing file, syntax error, import error)
    errors: List[str] = field(default_factory=list)
    #: process-level events (timeouts, restarts, ignored forged output)
    notes: List[str] = field(default_factory=list)
    #: a grader fault happened (the reference failed, or the grader crashed)
    fault: Optional[str] = None
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)


#: tests a submission must share a mutant's wrong output on before that mutant's misconception is named
MIN_MATCHES = 2


def failed_problem(spec: ProblemSpec, message: str, fault: Optional[str] = None) -> ProblemResult:
    """Every test at 0 with the same message (missing or unusable file, or a fault)."""
    tests = [
        TestResult(spec.id, t.id, t.name, t.kind, t.points, 0.0, message) for t in spec.tests
    ]
    return ProblemResult(spec.id, spec.title, tests, errors=[message], fault=fault)


def _diagnose(
    test: TestSpec,
    fn: Any,
    student: ProbeOutcome,
    reference: ProbeOutcome,
    mutants: Sequence[Tuple[str, str, ChildRun]],
) -> Optional[str]:
    """The misconception of the first mutant whose output the student's reproduces."""
    for name, misconception, run in mutants:
        mutant = run.outcomes.get(test.probe)
        if mutant is None:
            continue
        if mutant.ok and reference.ok and same_outcome(fn, mutant, reference, test.options):
            continue  # this mutant passes this test: it explains nothing here
        if same_outcome(fn, student, mutant, test.options):
            return misconception
    return None


def score_problem(
    spec: ProblemSpec,
    run: ChildRun,
    reference: ChildRun,
    mutants: Sequence[Tuple[str, str, ChildRun]],
    local_judges: Dict[str, Any],
) -> ProblemResult:
    """Judge each test of `spec` on the student's run against the reference run."""
    judged = []
    rules: Counter = Counter()
    matched: Counter = Counter()
    load_error = None
    if run.load_error:
        err = run.load_error
        where = f"{spec.swap.file}:{err.get('line')}" if err.get("line") else spec.swap.file
        load_error = f"importing {where} failed: {err.get('type')}: {err.get('message')}"
    for test in spec.tests:
        fn = get_judge(test.judge, local_judges)
        student = run.outcomes[test.probe]
        ref = reference.outcomes[test.probe]
        if load_error:
            verdict = Verdict(0.0, load_error)
        else:
            verdict = judge_outcome(fn, student, ref, test.options, spec.swap.file)
        misconception = None
        if not verdict.passed and not load_error:
            if verdict.misconception:
                misconception = verdict.misconception
                rules[misconception] += 1
            else:
                misconception = _diagnose(test, fn, student, ref, mutants)
                if misconception:
                    matched[misconception] += 1
        judged.append((test, verdict, misconception, student.seconds))
    # A rule names a misconception outright; a match with a mutant's output must recur to count.
    found = Counter({m: rules[m] + matched[m] for m in set(rules) | set(matched) if rules[m] or matched[m] >= MIN_MATCHES})
    tests = [
        TestResult(
            spec.id, test.id, test.name, test.kind, test.points,
            round(test.points * max(0.0, min(1.0, verdict.fraction)), 6),
            verdict.message, misconception if misconception in found else None,
            seconds, verdict.figure,
        )
        for test, verdict, misconception, seconds in judged
    ]
    errors = [load_error] if load_error else []
    if run.missing_symbols:
        errors.append(f"not defined in {spec.swap.file}: {', '.join(run.missing_symbols)}")
    return ProblemResult(
        spec.id, spec.title, tests,
        misconceptions=[m for m, _ in found.most_common()],
        errors=errors, notes=list(run.notes), seconds=run.seconds,
    )
