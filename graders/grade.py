"""Grade one submission: the pipeline, stage by stage, each problem isolated from the others."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional

from . import __version__, sandbox
from .assemble import grader_version
from .problemcheck import static_findings
from .baseline import DEFAULT_SEED, GraderFault, child_config, limits_for, mutant_runs, problem_hooks, reference_run
from .integrity import screen_submission
from .intake import Submission, open_submission
from .probe import run_child
from .score import ProblemResult, failed_problem, score_problem
from .offering import get_offering, offering_problems
from .spec import ProblemSpec


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
    def misconceptions(self) -> List[str]:
        return list(dict.fromkeys(m for p in self.problems for m in p.misconceptions))


@dataclass(frozen=True)
class GradeOptions:
    #: the course offering (problems/offerings.toml); None: its default
    offering: Optional[str] = None
    problems: Optional[List[str]] = None
    #: problems graded at once (each in its own child process)
    jobs: int = 2
    seed: int = DEFAULT_SEED
    #: tighter child limits (e.g. {"probe_seconds": 3, "wall_seconds": 20}); never looser than the problem's
    limits: Optional[Dict[str, float]] = None


def grade_problem(
    spec: ProblemSpec, submission: Submission, workspace: Path, seed: int, limits: Optional[Dict[str, float]] = None
) -> ProblemResult:
    """One problem: its own child, judged against the cached reference and mutants."""
    record = submission.files[spec.swap.file]
    if record.staged is None:
        return failed_problem(spec, record.error or f"{spec.swap.file} is missing")
    try:
        findings = static_findings(spec.folder)
        if findings:  # a malformed problem folder: said once, naming the file, never judged
            raise GraderFault("the problem folder does not pass `autograde check-problems`:\n" + "\n".join(findings))
        run = run_child(child_config(spec, workspace / "runs" / spec.id, seed, record.staged), limits_for(spec, limits))
        hooks = problem_hooks(spec)
        local = dict(getattr(hooks, "JUDGES", {})) if hooks else {}
        result = score_problem(spec, run, reference_run(spec, seed), mutant_runs(spec, seed), local)
    except GraderFault as exc:
        return failed_problem(spec, "not graded: the grader failed on this problem (course staff notified)", fault=str(exc))
    except Exception as exc:  # a grader bug must not lose the other problems
        fault = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
        return failed_problem(spec, "not graded: the grader failed on this problem (course staff notified)", fault=fault)
    if record.found_at:
        result.notes.insert(0, f"graded {record.found_at} as {spec.swap.file}")
    return result


#: where graders stage submissions and child outputs: one folder per user (a TA grading after root on the
#: same machine must not meet root's folder), <pid>-<random> per grading inside it
WORK_BASE = Path(tempfile.gettempdir()) / f"autograde-work-{os.getuid()}"


def work_base() -> Path:
    """This user's WORK_BASE, created if needed. Refused (with the folder named) when someone else owns it or
    can write to it: a folder another user made in /tmp could read or swap what is graded."""
    WORK_BASE.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = WORK_BASE.lstat()
    if WORK_BASE.is_symlink() or info.st_uid != os.getuid():
        raise PermissionError(f"{WORK_BASE} is not a folder of this user (owner uid {info.st_uid}): "
                              "remove it or set TMPDIR")
    if info.st_mode & 0o022:
        WORK_BASE.chmod(0o755)  # ours, but writable by others (an old umask): no longer
    return WORK_BASE


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_workspaces() -> None:
    """Remove workspaces left by graders that were killed (their pid is gone)."""
    if not WORK_BASE.is_dir():
        return
    for entry in work_base().iterdir():
        pid = entry.name.partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


@contextmanager
def workspace_dir() -> Iterator[Path]:
    """A private scratch directory, removed afterwards (or by the next grader if this one is killed)."""
    base = work_base()
    sweep_stale_workspaces()
    path = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def grade_submission(source: Path, options: GradeOptions = GradeOptions(), name: Optional[str] = None) -> GradeResult:
    """Intake → (assemble → probe → judge → score) per problem, in parallel."""
    started = time.monotonic()
    offering = get_offering(options.offering)
    specs = offering_problems(offering, only=options.problems)
    with workspace_dir() as workspace:
        submission = open_submission(source, workspace, [s.swap.file for s in specs], name=name)
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            problems = list(pool.map(lambda s: grade_problem(s, submission, workspace, options.seed, options.limits), specs))
        review = _screen(submission, specs)
    return GradeResult(
        submission=submission.name,
        problems=problems,
        errors=list(submission.errors),
        warnings=list(submission.warnings),
        execution_time=round(time.monotonic() - started, 3),
        grader_version=f"{__version__}+{grader_version()}",
        seed=options.seed,
        content_hash=submission.content_hash,
        sandbox=sandbox.capabilities().level,
        offering=offering.id,
        review=review,
    )


def _screen(submission: Submission, specs: List[ProblemSpec]) -> List[str]:
    """The integrity screen's review lines; a screen that fails costs no grade (it says so, for a TA)."""
    try:
        return screen_submission(_staged_files(submission, specs))
    except Exception as exc:  # never lose the grades for a tripwire
        return [f"the integrity screen could not read the files ({type(exc).__name__}): a TA should read them"]


def _staged_files(submission: Submission, specs: List[ProblemSpec]) -> List[tuple]:
    """(staged copy, name as the contract gives it) of every graded file the submission has."""
    records = [(submission.files[s.swap.file], s.swap.file) for s in specs]
    return [(record.staged, name) for record, name in records if record.staged is not None]
