"""The `batch` verb: grade every submission of a folder, in parallel and resumably.

Flow per submission: the client plans (cheap content hash, skip when the
gradebook already holds a complete record for the same content, grader
version, problems and seed), an executor task grades it and writes
DIR/<name>/{junit.xml,results.json,report.html} atomically, then the client
commits the gradebook record in one transaction. A kill at any instant leaves
files that are at worst newer than the gradebook, which the next run regrades.

The executor is any `concurrent.futures.Executor`: a pool of worker processes locally
(judging and drawing reports is Python work that threads would serialise; each worker
dies with the batch), or a Dask cluster's executor.
"""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import sys
import time
import traceback
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from . import __version__
from .assemble import stack_for
from .baseline import reference_run
from .faults import INJECT_ENV
from .grade import GradeOptions, grade_submission
from .gradebook import GRADEBOOK, Gradebook, GradedSubmission, SubmissionRow
from .intake import open_submission
from .offering import get_offering, offering_problems
from .record import write_atomic, write_results
from .results import DEFAULT_SEED, GradeResult
from .safetext import one_line, printable
from .score import failed_problem
from .submissions import BatchUsageError, Entry, discover
from .version import grader_version
from .workers import safe_path_children, worker_start
from .workspace import workspace_dir

RESULT_FILES = ("junit.xml", "results.json", "report.html")
LOCK_FILE = ".autograde-batch.lock"
#: Link from a student's report back to the class report.
INDEX_LINK = "../index.html"
#: How long to try reaching a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT = "15s"
FAULT_MESSAGE = "not graded: the grader failed on this submission (course staff notified)"


@dataclass(frozen=True)
class BatchOptions:
    """How to run a batch."""

    #: the course offering (problems/offerings.toml); None: its default
    offering: Optional[str] = None
    #: problem ids to grade (None: all of the offering's)
    problems: Optional[List[str]] = None
    #: submissions graded at once (local worker processes; ignored with a scheduler)
    jobs: int = 1
    #: problems of one submission graded at once (1 avoids oversubscribing cores)
    problem_jobs: int = 1
    #: grade everything again, even unchanged submissions
    regrade: bool = False
    #: Dask scheduler address (tcp://host:port); None grades locally
    scheduler: Optional[str] = None
    seed: int = DEFAULT_SEED
    #: show a progress bar on stderr
    progress: bool = True
    #: grade even when the strong sandbox is unavailable (recorded in every result)
    allow_weak_sandbox: bool = False
    #: screen the class for copied code after grading (graders.similarity)
    similarity: bool = True
    #: code given to everyone besides the student template (files or folders), left out of the screening
    similarity_bases: Tuple[str, ...] = ()


@dataclass(frozen=True)
class GradeTask:
    """Everything a worker needs to grade one submission (plain data: it pickles)."""

    name: str
    #: absolute path of the folder or zip (on the shared filesystem under Dask)
    source: str
    #: absolute batch output directory; the task writes <out_dir>/<name>/
    out_dir: str
    #: the offering graded (its problems and points)
    offering: str
    problems: Tuple[str, ...]
    seed: int
    problem_jobs: int
    #: the client's content hash, used when grading fails before intake
    content_hash: str
    #: the client's grader version, used when grading fails before producing a result
    grader_version: str


@dataclass
class BatchRun:
    """What one `autograde batch` did."""

    out_dir: Path
    #: submissions graded (and recorded) by this run, in completion order
    graded: List[GradedSubmission] = field(default_factory=list)
    #: names skipped because their record is up to date
    skipped: List[str] = field(default_factory=list)
    #: entries of the folder that are neither folders nor .zip files
    ignored: List[str] = field(default_factory=list)
    #: things the TA should know (version mismatch on workers, ...)
    warnings: List[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the class report's content after the batch (reports.class_report.ClassView)
    view: Any = None
    #: the similarity screening's summary (graders.similarity.SimilaritySummary); None when not run or failed
    similarity: Any = None

    @property
    def faults(self) -> List[GradedSubmission]:
        return [g for g in self.graded if g.status == "fault"]

    @property
    def errors(self) -> List[GradedSubmission]:
        return [g for g in self.graded if g.status == "error"]


def current_grader_version() -> str:
    """The version string a GradeResult carries (package version + content hash)."""
    return f"{__version__}+{grader_version()}"


# --------------------------------------------------------------------- planning


def submission_hash(source: Path, wanted: Sequence[str]) -> str:
    """Intake's content hash of `source` (the same definition: intake computes it)."""
    with workspace_dir() as tmp:
        return open_submission(source, tmp, wanted).content_hash


def outputs_complete(student_dir: Path, row: SubmissionRow) -> bool:
    """All result files exist and results.json describes the recorded grade."""
    if not all((student_dir / f).is_file() for f in RESULT_FILES):
        return False
    try:
        doc = json.loads((student_dir / "results.json").read_text(encoding="utf-8"))
        extra = doc["extra_data"]
        return extra.get("content_hash") == row.content_hash and abs(float(doc["score"]) - row.score) < 1e-9
    except (OSError, ValueError, KeyError, TypeError):
        return False


def problems_key(task: GradeTask) -> str:
    """What was graded, as the gradebook records it: `offering:problem,problem` (a change regrades)."""
    return f"{task.offering}:" + ",".join(task.problems)


def up_to_date(row: Optional[SubmissionRow], task: GradeTask) -> bool:
    """The gradebook holds a complete, fault-free record of this exact grading."""
    return (
        row is not None
        and row.status != "fault"
        and row.content_hash == task.content_hash
        and row.grader_version == task.grader_version
        and row.problems == problems_key(task)
        and row.seed == task.seed
        and outputs_complete(Path(task.out_dir) / task.name, row)
    )


def plan(entries: Sequence[Entry], book: Gradebook, options: BatchOptions,
         out_dir: Path) -> Tuple[List[GradeTask], List[str]]:
    """(tasks to run, names skipped as up to date)."""
    offering = get_offering(options.offering)
    specs = offering_problems(offering, only=options.problems)
    wanted = [s.swap.file for s in specs]
    version = current_grader_version()
    tasks: List[GradeTask] = []
    skipped: List[str] = []
    for entry in entries:
        task = GradeTask(
            name=entry.name, source=str(entry.path), out_dir=str(out_dir.resolve()), offering=offering.id,
            problems=tuple(s.id for s in specs), seed=options.seed, problem_jobs=options.problem_jobs,
            content_hash=submission_hash(entry.path, wanted), grader_version=version,
        )
        if not options.regrade and up_to_date(book.get(entry.name), task):
            skipped.append(entry.name)
        else:
            tasks.append(task)
    return tasks, skipped


# ------------------------------------------------------------------- the task


def fault_result(task: GradeTask, fault: str) -> GradeResult:
    """A complete zero-score result for a submission the grader failed on."""
    try:
        specs = offering_problems(get_offering(task.offering), only=list(task.problems))
        problems = [failed_problem(s, FAULT_MESSAGE, fault=fault) for s in specs]
    except Exception:  # the problem specs themselves are unusable
        problems = []
    return GradeResult(
        submission=task.name, problems=problems, errors=[FAULT_MESSAGE],
        grader_version=task.grader_version, seed=task.seed, content_hash=task.content_hash, offering=task.offering,
    )


def _remove_stale_temporaries(student_dir: Path) -> None:
    """Temp files a killed run left behind (write_atomic's `.NAME.tmpPID`)."""
    if student_dir.is_dir():
        for stale in student_dir.glob(".*.tmp*"):
            stale.unlink(missing_ok=True)


#: what a batch's report.html shows (reports.render.SHOWN): the student's report before the due date
REPORT_SHOWS = "visible"


def write_report(result: GradeResult, student_dir: Path, show: str = REPORT_SHOWS) -> None:
    """report.html, linking back to the class report, written atomically; it shows the results of the tests
    whose visibility `show` names (reports.render.SHOWN: the student's report before the due date by default)."""
    from reports.render import SHOWN, render_submission

    html = render_submission(result, links={"index": INDEX_LINK},  # figures drawn one at a time (graders.figures)
                             shown=SHOWN[show])
    write_atomic(student_dir / "report.html", html)


def write_outputs(result: GradeResult, student_dir: Path) -> None:
    """junit.xml, results.json, then report.html: each written atomically."""
    _remove_stale_temporaries(student_dir)
    write_results(result, student_dir)
    write_report(result, student_dir)


def _graded(task: GradeTask, result: GradeResult, started: float, fault: Optional[str]) -> GradedSubmission:
    return GradedSubmission(
        name=task.name, source=task.source, content_hash=result.content_hash or task.content_hash,
        problems=problems_key(task), seed=task.seed,
        grader_version=result.grader_version or task.grader_version, result=result,
        fault=fault, started_at=started, finished_at=time.time(),
    )


def _write_or_fault(task: GradeTask, result: GradeResult) -> Optional[str]:
    try:
        write_outputs(result, Path(task.out_dir) / task.name)
    except Exception as exc:
        return f"writing the results failed: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
    return None


def grade_task(task: GradeTask) -> GradedSubmission:
    """Grade one submission and write its files. Runs on a worker; never raises."""
    from reports.render import SHOWN

    started = time.time()
    fault = None
    try:
        options = GradeOptions(offering=task.offering, problems=list(task.problems), jobs=task.problem_jobs,
                               seed=task.seed, figures=SHOWN[REPORT_SHOWS])
        result = grade_submission(Path(task.source), options, name=task.name)
    except Exception as exc:  # a grader bug: this submission gets a fault row, the batch goes on
        fault = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"
        result = fault_result(task, fault)
    fault = _write_or_fault(task, result) or fault
    return _graded(task, result, started, fault)


def task_failed(task: GradeTask, exc: BaseException, started: float) -> GradedSubmission:
    """The task itself did not return (worker died, result lost): a fault, recorded by the client."""
    fault = f"the grading task failed: {type(exc).__name__}: {exc}"
    result = fault_result(task, fault)
    _write_or_fault(task, result)
    return _graded(task, result, started, fault)


# ------------------------------------------------------------------ executors


def _dask_client(address: str):
    try:
        from distributed import Client
    except ImportError as exc:
        raise BatchUsageError(
            f"--scheduler needs Dask ({exc}); install it with: pip install 'minitorch-autograder[dask]'"
        ) from None
    try:
        return Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise BatchUsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


@contextmanager
def executor_for(options: BatchOptions) -> Iterator[Executor]:
    """A pool of `jobs` worker processes (one thread for `--jobs 1`), or the executor of a Dask cluster."""
    if options.scheduler:
        client = _dask_client(options.scheduler)
        try:
            yield client.get_executor(pure=False)
        finally:
            client.close()
        return
    with safe_path_children():  # the pool's resource tracker starts here, its workers on the first submissions
        if options.jobs <= 1:
            pool: Executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autograde")
        else:  # processes: judging and rendering reports are Python work that threads would serialise (GIL)
            pool = ProcessPoolExecutor(max_workers=options.jobs, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=worker_start, initargs=(os.getpid(), options.jobs))
        try:
            yield pool
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def batch_lock(out_dir: Path) -> Iterator[None]:
    """One batch (or report) at a time per output folder; released even on SIGKILL."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / LOCK_FILE, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchUsageError(f"another autograde batch or report is writing {out_dir}") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ---------------------------------------------------------------------- the run


class _Progress:
    """tqdm bar with counts, ETA and the errors/faults so far."""

    def __init__(self, total: int, enabled: bool):
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc="grading", unit="sub", file=sys.stderr, disable=not enabled,
                        dynamic_ncols=True, smoothing=0.1, mininterval=0.5)
        self.counts = {"errors": 0, "faults": 0}

    def done(self, graded: GradedSubmission) -> None:
        if graded.status == "error":
            self.counts["errors"] += 1
        elif graded.status == "fault":
            self.counts["faults"] += 1
        self.bar.set_postfix(self.counts, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


#: times the tasks of a worker pool that broke (a worker process killed) are handed to a fresh pool
POOL_RETRIES = 2


def _collect(executor: Executor, tasks: Sequence[GradeTask], book: Gradebook, run: BatchRun,
             progress: _Progress, on_record: Optional[Callable[[GradedSubmission], None]],
             last_chance: bool = True) -> List[GradeTask]:
    """Record every task's result as it completes; return the tasks lost to a broken worker pool
    (unless `last_chance`: then they are recorded as faults)."""
    started = time.time()
    warming = [executor.submit(warm_problem, problem, tasks[0].offering, tasks[0].seed)
               for problem in (tasks[0].problems if tasks and not os.environ.get(INJECT_ENV) else ())]
    futures: Dict[Future, GradeTask] = {executor.submit(grade_task, t): t for t in tasks}
    lost: List[GradeTask] = []
    try:
        for future in as_completed(futures):
            task = futures[future]
            try:
                graded = future.result()
            except BrokenExecutor as exc:
                if not last_chance:
                    lost.append(task)
                    continue
                graded = task_failed(task, exc, started)
            except Exception as exc:  # the task did not return (worker lost, pickling, ...)
                graded = task_failed(task, exc, started)
            book.record(graded)
            run.graded.append(graded)
            progress.done(graded)
            if on_record:
                on_record(graded)
    except BaseException:
        for future in [*warming, *futures]:
            future.cancel()
        raise
    return lost


def warm_problem(problem_id: str, offering: str, seed: int) -> None:
    """Build what every grading of a problem reads (the stack its students' files run on, its inputs, the
    reference's run) before the first submissions are graded: the first tasks of a batch with an empty cache
    then find them built, by the workers in parallel, instead of each waiting on them in turn. Runs on a worker
    (a Dask worker builds its own cache); what fails here is built again, and met as a fault, by the grading.
    Skipped when faults are injected (tests: the gradings are to meet them)."""
    try:
        (spec,) = offering_problems(get_offering(offering), only=[problem_id])
        stack_for(spec)
        reference_run(spec, seed)
    except Exception:  # the gradings build it again and say what failed
        pass


def _version_warning(run: BatchRun, version: str) -> None:
    others = sorted({g.grader_version for g in run.graded if g.grader_version != version})
    if others:
        run.warnings.append(
            f"workers graded with grader version(s) {', '.join(others)} but this client is {version}: "
            "install the same version everywhere, or those submissions are regraded on every run"
        )


def require_sandbox(options: BatchOptions) -> None:
    """Batch grading refuses the weak sandbox (rlimits only) unless explicitly allowed (local `grade` only
    warns); the strong and the unprivileged levels both grade."""
    from . import sandbox

    caps = sandbox.capabilities()
    if caps.strong or options.scheduler:  # on a cluster the workers' machines decide; results record it
        return
    if caps.level == "unprivileged":  # the view, namespaces and a process limit: no student reaches another
        sandbox.warn_if_weak()
        return
    if not options.allow_weak_sandbox:
        missing = "; ".join(caps.missing())
        raise BatchUsageError(
            f"no sandbox beyond rlimits is available here ({missing}); install what is missing, "
            "or pass --allow-weak-sandbox to grade with fewer isolation layers (recorded in every result)"
        )
    sandbox.warn_if_weak()


def run_batch(submissions_dir: Path, out_dir: Path, options: BatchOptions,
              on_record: Optional[Callable[[GradedSubmission], None]] = None) -> BatchRun:
    """Grade `submissions_dir` into `out_dir`; write gradebook, grades.csv and index.html."""
    from reports.class_report import write_class_outputs

    clock = time.monotonic()
    offering_problems(get_offering(options.offering), only=options.problems)  # usage errors before anything is written
    require_sandbox(options)
    entries, ignored = discover(submissions_dir, out_dir)
    run = BatchRun(out_dir=out_dir, ignored=ignored)
    with batch_lock(out_dir), Gradebook(out_dir / GRADEBOOK) as book:
        tasks, run.skipped = plan(entries, book, options, out_dir)
        if tasks:
            progress = _Progress(len(tasks), options.progress)
            try:
                for attempt in range(POOL_RETRIES + 1):  # a killed worker breaks its pool: retry in a new one
                    with executor_for(options) as executor:
                        tasks = _collect(executor, tasks, book, run, progress, on_record, attempt == POOL_RETRIES)
                    if not tasks:
                        break
                    run.warnings.append(f"a worker process died; {len(tasks)} submission(s) handed to a new pool")
            finally:
                progress.close()
        _version_warning(run, current_grader_version())
        if options.similarity:
            screen_similarity(submissions_dir, out_dir, options, run)
        run.view = write_class_outputs(out_dir, book)
    run.seconds = round(time.monotonic() - clock, 3)
    return run


def screen_similarity(submissions_dir: Path, out_dir: Path, options: BatchOptions, run: BatchRun) -> None:
    """Screen the class for copied code (graders.similarity) once grading is recorded. A failure is a
    warning and costs no grade; it removes the previous screening's files, so the class report never
    links a stale page."""
    from reports.similarity_report import write_similarity_outputs

    from .similarity import remove_outputs, screen_class

    try:
        result = screen_class(submissions_dir, out_dir, bases=[Path(b) for b in options.similarity_bases],
                              offering=options.offering, jobs=None if options.scheduler else options.jobs)
        run.similarity = write_similarity_outputs(result, out_dir, links={"index": "index.html"})
    except Exception as exc:  # never lose grading results to the screening
        try:
            remove_outputs(out_dir)
        except OSError:
            pass
        run.warnings.append(f"similarity screening failed ({one_line(f'{type(exc).__name__}: {exc}')}); "
                            "grades are unaffected")


def rerender(out_dir: Path, show: str = "visible") -> int:
    """`autograde report`: per-student reports (showing the tests `show` names: `write_report`), index.html and
    grades.csv from the gradebook."""
    from reports.class_report import write_class_outputs

    path = out_dir / GRADEBOOK
    if not path.is_file():
        raise BatchUsageError(f"{path} does not exist: run `autograde batch ... --out {out_dir}` first")
    count = 0
    with batch_lock(out_dir), Gradebook(path) as book:
        for row in book.rows():
            result = book.result(row.name)
            if result is None:
                continue
            try:
                write_report(result, out_dir / row.name, show)
            except Exception as exc:  # one report that cannot be drawn must not stop the class's
                print(f"warning: the report of {one_line(row.name)} was not re-rendered: "
                      f"{one_line(f'{type(exc).__name__}: {exc}')}", file=sys.stderr)
                continue
            count += 1
        write_class_outputs(out_dir, book)
    return count


# ------------------------------------------------------------------- summary

#: Lines listing failures in the end-of-batch summary (it must fit one screen).
SUMMARY_FAILURES = 8


def summary_text(run: BatchRun) -> str:
    """The one-screen summary printed at the end of a batch; printable text only (names on one line each)."""
    view = run.view
    rate = 60 * len(run.graded) / run.seconds if run.seconds and run.graded else 0.0
    lines = [f"graded {len(run.graded)} submission(s) in {run.seconds:.1f} s ({rate:.1f}/min); "
             f"{len(run.skipped)} unchanged, skipped"]
    if run.ignored:
        lines.append(f"ignored {len(run.ignored)} entr{'y' if len(run.ignored) == 1 else 'ies'} "
                     f"(neither a folder nor a .zip): {', '.join(one_line(n) for n in run.ignored[:5])}")
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(view.status_counts.items()))
    lines.append(f"class of {len(view.students)}: mean {view.mean:.1f}, median {view.median:g} "
                 f"out of {view.max_score:g} ({statuses or 'empty'})")
    if view.problems:
        lines.append("per problem (mean / max): "
                     + "  ".join(f"{p.id} {p.mean:.1f}/{p.max_score:g}" for p in view.problems))
    if view.misconceptions:
        lines.append("top misconceptions: " + ", ".join(f"{m.id} ({m.count})" for m in view.misconceptions[:5]))
    if view.clusters:
        lines.append(f"failure clusters: {len(view.clusters)} group(s) failing alike, "
                     f"{len(view.uncatalogued_clusters)} with no misconception named "
                     "(index.html#clusters, clusters.json)")
    failures = run.faults + run.errors
    if failures:
        lines.append(f"did not run normally in this run: {len(run.faults)} grader fault(s), {len(run.errors)} error(s)")
        for g in failures[:SUMMARY_FAILURES]:
            first = (g.issues or ["?"])[0].splitlines()[0][:150]
            lines.append(f"  {one_line(g.name)} [{g.status}]: {one_line(first)}")
        if len(failures) > SUMMARY_FAILURES:
            lines.append(f"  ... and {len(failures) - SUMMARY_FAILURES} more (see index.html)")
    if run.similarity is not None:
        lines.append(f"similarity: {run.similarity.flagged_count} pair(s) of {run.similarity.pairs} at or above "
                     f"{run.similarity.threshold:g} (see {run.out_dir / 'similarity.html'})")
        if run.similarity.uncompared:
            lines.append(f"similarity: {len(run.similarity.uncompared)} submission(s) could not be compared "
                         f"(listed in index.html)")
    lines.extend(f"warning: {w}" for w in run.warnings)
    out = run.out_dir
    lines.append(f"wrote {out / 'index.html'}, {out / 'grades.csv'}, {out / GRADEBOOK}")
    return printable("\n".join(lines))
