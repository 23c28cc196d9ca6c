"""The grader's results as typed values: what a probe produced, a child's run, a test, a problem, a submission.

Plain dataclasses and their derived properties only, no stage's logic: the stages make them, the gradebook
stores them, the reports show them. This module imports no other module of the grader, so any module may import
it. A problem's judges get `ProbeOutcome` through `graders.api`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

#: the probes' random seed when none is given (a grading records the seed it used)
DEFAULT_SEED = 2026


# ------------------------------------------------------------------ the child (graders.probe)


@dataclass
class ProbeOutcome:
    """What one probe produced in the child."""

    #: probe id
    probe: str
    #: "ok" (value holds the data), "error" (the probe raised), "missing" (no result arrived)
    status: str
    #: the probe's plain-data result (JSON types only)
    value: Any = None
    #: exception type name, for status "error"
    error_type: str = ""
    #: exception message or the reason the result is missing
    error_message: str = ""
    #: line of the student's file the exception passed through, if any
    line: Optional[int] = None
    #: seconds spent in the probe, as measured by the child (informative only)
    seconds: float = 0.0
    #: the child's CPU time at each `probekit.mark(label)`, read by the parent from the kernel
    #: (the process CPU clocks of its whole process tree), in seconds; None when a label was sent twice (forged
    #: marks) or the child's CPU clock could not be read
    marks: Optional[Dict[str, float]] = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self, display_path: str = "") -> str:
        """One line for a report: 'RecursionError: ... (minitorch/autodiff.py:42)'."""
        where = f" ({display_path}:{self.line})" if self.line and display_path else ""
        if self.status == "error" and self.error_type == "NotImplementedError":
            said = f" ({self.error_message})" if self.error_message.strip() else ""
            return f"not implemented yet: NotImplementedError{said}{where}"
        if self.status == "error":
            return f"{self.error_type}: {self.error_message}{where}"
        return self.error_message or "no result"


@dataclass
class ChildRun:
    """Everything one problem's probing produced."""

    outcomes: Dict[str, ProbeOutcome]
    #: the student's file failed to import: type, message, line
    load_error: Optional[Dict[str, Any]] = None
    #: symbols the student's file does not define
    missing_symbols: List[str] = field(default_factory=list)
    #: process-level events: timeouts, kills, restarts, tampering
    notes: List[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the harness itself failed outside any probe (a grader fault on a trusted run)
    fault: Optional[str] = None
    #: forbidden libraries the student's code tried to import
    policy: List[str] = field(default_factory=list)
    #: the harness fault (`fault`) happened before any graded code ran in this run: the grader's for sure
    fault_before_student: bool = False
    #: failures of the machine or the grader for sure: a child that ended before any graded code ran in this run
    #: (not at a time limit) (graders.faults)
    machine: List[str] = field(default_factory=list)
    #: where a child was SIGKILLed by something else than the grader and its own memory limit (the host's
    #: out-of-memory killer, an operator, or the graded code itself): a probe id, or "import"
    outside_kills: List[str] = field(default_factory=list)
    #: most memory the child's whole process tree used at once, over every attempt, in MiB, as its control
    #: group counted it, or at the unprivileged level the most the grader's watchdog saw (None without either)
    peak_mib: Optional[float] = None
    #: processes of the tree the kernel killed for going over the problem's memory limit (control group), or
    #: times the unprivileged level's watchdog killed the sandbox for it
    oom_kills: int = 0
    #: CPU seconds the child's whole process tree used, over every attempt, as its control group counted them
    #: (None where no control group counts CPU): what the run cost the machine (`graders.runlog`, benchmarks)
    cpu_seconds: Optional[float] = None


# ------------------------------------------------------------------ scores (graders.score)


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
    #: the figure drawn (inline SVG) when the problem was graded; not kept in the gradebook (redrawn from `figure`)
    svg: Optional[str] = None
    #: what a TA should check by hand before trusting this test's score (its judge could not read the result, or
    #: its data cannot tell two readings apart); for course staff: the student's message says only that staff look
    review: Optional[str] = None

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
    #: most memory the sandboxed child's whole process tree used at once (MiB, its control group's own count, or
    #: the unprivileged level's watchdog's; None without either), and its processes killed for going over the
    #: problem's memory limit (by the kernel in the control group; the whole sandbox, once, by the watchdog)
    peak_mib: Optional[float] = None
    oom_kills: int = 0

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)


# ------------------------------------------------------------------ a submission (graders.grade)


@dataclass
class GradeResult:
    """Everything known about one graded submission."""

    submission: str
    problems: List[ProblemResult]
    #: submission-level errors (not a zip, empty, ...)
    errors: List[str] = field(default_factory=list)
    #: things the student should know (refused entries, files found elsewhere)
    warnings: List[str] = field(default_factory=list)
    execution_time: float = 0.0
    grader_version: str = ""
    seed: int = DEFAULT_SEED
    content_hash: str = ""
    #: "strong" (bubblewrap view, unprivileged uid, namespaces, control group, rlimits), "unprivileged"
    #: (the same view and namespaces in a user namespace, rlimits; no control group) or "weak" (rlimits only)
    sandbox: str = "strong"
    #: the course offering graded (problems/offerings.toml)
    offering: str = ""
    #: constructs a TA should look at before trusting the score (graders.integrity; never changes a score)
    review: List[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return round(sum(p.score for p in self.problems), 6)

    @property
    def max_score(self) -> float:
        return round(sum(p.max_score for p in self.problems), 6)

    @property
    def faults(self) -> List[str]:
        return [f"{p.id}: {p.fault}" for p in self.problems if p.fault]

    @property
    def pending(self) -> float:
        """Points of the problems the grader failed on: not graded yet (course staff regrade them)."""
        return round(sum(p.max_score for p in self.problems if p.fault), 6)

    @property
    def misconceptions(self) -> List[str]:
        return list(dict.fromkeys(m for p in self.problems for m in p.misconceptions))

    @property
    def staff_review(self) -> List[str]:
        """Everything a TA should look at: the integrity screen's lines (`review`, which the student sees too) and
        the tests whose judges asked for a person (named by problem and test: staff only, since a test may be one
        the student is not shown yet)."""
        return list(self.review) + [review_line(p.id, t.name, t.review) for p in self.problems for t in p.tests
                                    if t.review]


def review_line(problem: str, test: str, text: str) -> str:
    """A test's request for a person, as the review lists say it: named by problem and test."""
    return f"{problem} · {test}: {text}"
