"""The trusted runs the judge compares against: the reference and the instructor's mutants.

Both are computed by the same harness as a submission (so they see the same
probe inputs), once per grader version and seed, and cached as JSON.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

from . import paths, sandbox
from .assemble import child_dir, mutant_files, probes_dir, stack_for, swap_for
from .cache import cache_root, cached_dir, cached_json
from .faults import GraderFault, inject, injected
from .intake import parse_python
from .limits import Limits
from .probe import ChildConfig, run_child
from .results import DEFAULT_SEED, ChildRun, ProbeOutcome
from .runlog import note_run
from .spec import ProblemSpec, problem_module
from .workers import core_share


def limits_for(problem: ProblemSpec, tighter: Optional[Dict[str, float]] = None) -> Limits:
    """The child's limits from problem.toml, optionally tightened (never loosened)."""
    return problem.limits.tightened(tighter)


def problem_hooks(problem: ProblemSpec) -> Any:
    """The problem's parent-side module `judges.py` (custom judges, input preparation), if any."""
    return problem_module(problem, "judges.py")


def inputs_dir(problem: ProblemSpec) -> Optional[Path]:
    """Probe inputs the parent prepares (e.g. training data without validation labels)."""
    hooks = problem_hooks(problem)
    if hooks is None or not hasattr(hooks, "prepare_inputs"):
        return None
    return cached_dir(f"inputs/{problem.id}", hooks.prepare_inputs)


#: fault kinds the child itself makes (graders.faults, tests only)
CHILD_FAULTS = ("stack-import", "probes-import")


def child_faults(problem: ProblemSpec) -> List[str]:
    """The child-side faults to inject into a student's run of `problem` now (tests only; usually none)."""
    return [kind for kind in CHILD_FAULTS if injected(kind, problem.id)]


def checkpoints(problem: ProblemSpec) -> Dict[str, Callable[[Any], bool]]:
    """The problem's judges of evidence a probe sends while it runs (judges.py's CHECKPOINTS: probe id ->
    `judge(evidence, options)`, options those of the first test of that probe), for the probes it runs."""
    hooks = problem_hooks(problem)
    declared = getattr(hooks, "CHECKPOINTS", {}) if hooks is not None else {}
    options: Dict[str, Dict[str, Any]] = {}
    for test in problem.tests:
        options.setdefault(test.probe, dict(test.options))
    return {probe: functools.partial(judge, options=options[probe])
            for probe, judge in declared.items() if probe in options}


def child_config(problem: ProblemSpec, workdir: Path, seed: int, student_file: Optional[Path],
                 inject_faults: Sequence[str] = ()) -> ChildConfig:
    """The harness configuration for a submission (or, with no file, the reference, which runs every probe to its
    end: no checkpoints)."""
    swap = swap_for(problem, student_file).as_config() if student_file is not None else None
    return ChildConfig(
        checkpoints=checkpoints(problem) if student_file is not None else {},
        inject=list(inject_faults),
        workdir=workdir,
        stack=stack_for(problem if student_file is not None else None),
        probes_dir=probes_dir(problem),
        probes=list(dict.fromkeys(t.probe for t in problem.tests)),
        seed=seed,
        inputs_dir=inputs_dir(problem),
        swap=swap,
        child_dir=child_dir(),
    )


def run_to_json(run: ChildRun) -> Dict[str, Any]:
    return asdict(run)


def run_from_json(data: Dict[str, Any]) -> ChildRun:
    data = dict(data)
    outcomes = {k: ProbeOutcome(**v) for k, v in data.pop("outcomes").items()}
    return ChildRun(outcomes=outcomes, **data)


def _readable_run(data: Any) -> bool:
    try:
        run_from_json(data)
    except (TypeError, ValueError, AttributeError, KeyError):
        return False
    return True


def _probes_digest(problem: ProblemSpec) -> str:
    """A short digest of what a run depends on that an offering may change: the probes and the swap."""
    probes = "\0".join(dict.fromkeys(t.probe for t in problem.tests)) + "\1" + "\0".join(problem.swap.symbols)
    return hashlib.sha256(probes.encode()).hexdigest()[:10]


def _fresh_run(problem: ProblemSpec, label: str, seed: int, student_file: Optional[Path],
               limits: Optional[Limits] = None, inject_faults: Sequence[str] = ()) -> ChildRun:
    """The problem's probes run now, in a private work folder of the cache."""
    workdir = cache_root() / "work" / problem.id / f"{label}-{os.getpid()}-{threading.get_ident()}"
    shutil.rmtree(workdir, ignore_errors=True)
    try:
        config = child_config(problem, workdir, seed, student_file, inject_faults)
        run = run_child(config, limits or limits_for(problem))
        note_run(problem.id, label.removesuffix(f"-{_probes_digest(problem)}"), run, graded_file=student_file)
        return run
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run_name(problem: ProblemSpec, label: str, seed: int) -> str:
    """Where a trusted run is cached (in `cache_root()`): per problem, label, probes and swap, seed."""
    return f"runs/{problem.id}/{label}-{_probes_digest(problem)}-{seed}.json"


def _cached_run(problem: ProblemSpec, label: str, seed: int, student_file: Optional[Path]) -> ChildRun:
    """`_cached_run_or_none`, waiting for another process that builds it."""
    return cast(ChildRun, _cached_run_or_none(problem, label, seed, student_file, wait=True))


def _cached_run_or_none(problem: ProblemSpec, label: str, seed: int, student_file: Optional[Path],
                        wait: bool) -> Optional[ChildRun]:
    """A trusted run, computed once per grader version, runtime and seed (a sealed document, graders.cache); without
    `wait`, None when another process is building it now.

    Only a run the grader can use is kept (`_unusable_run`): a reference probe that timed out at a busy moment, a
    harness fault or a machine failure raises GraderFault now and is run again next time. Kept, one bad moment
    while the cache was built made every later grading of the problem a grader fault, until someone cleared the
    cache by hand."""

    def build() -> Dict[str, Any]:
        run = _fresh_run(problem, f"{label}-{_probes_digest(problem)}", seed, student_file)
        why = _unusable_run(run, label)
        if why:
            raise GraderFault(f"the {label} run of problem '{problem.id}' failed (not cached, run again next "
                              f"time): {why}")
        return run_to_json(run)

    def usable(document: Any) -> bool:  # a cache written before the rule above may hold a failed run
        return _readable_run(document) and not _unusable_run(run_from_json(document), label)

    document = cached_json(_run_name(problem, label, seed), build, usable, wait=wait)
    return None if document is None else run_from_json(document)


def _unusable_run(run: ChildRun, label: str) -> Optional[str]:
    """Why a trusted run cannot be used (None if it can): the reference's every probe must succeed
    (`reference_problem`); a mutant may fail probes (that is its bug) but must have run (no load error, harness
    fault or machine failure)."""
    if label == "reference":
        return reference_problem(run)
    if run.load_error or run.fault or run.machine:
        return str(run.load_error or run.fault or "; ".join(run.machine))
    return None


def reference_run_ready(problem: ProblemSpec, seed: int = DEFAULT_SEED) -> bool:
    """Whether the reference's run is in the cache already (its file is there: read and checked when used)."""
    return (cache_root() / _run_name(problem, "reference", seed)).is_file()


def reference_problem(run: ChildRun) -> Optional[str]:
    """None if a run of the reference is what the grader needs (every probe succeeded, no fault), else why not."""
    failed = [o for o in run.outcomes.values() if not o.ok]
    if failed or run.fault or run.load_error or run.machine:
        return "; ".join(f"{o.probe}: {o.describe()}" for o in failed[:3]) or run.fault or str(run.load_error) \
            or "; ".join(run.machine)
    return None


def reference_run(problem: ProblemSpec, seed: int = DEFAULT_SEED) -> ChildRun:
    """The probes on the full reference; every probe must succeed."""
    inject("reference", problem.id)
    run = _cached_run(problem, "reference", seed, None)
    details = reference_problem(run)
    if details:
        raise GraderFault(f"reference run of problem '{problem.id}' failed: {details}")
    return run


def control_run(problem: ProblemSpec, seed: int, limits: Limits, inject_faults: Sequence[str] = ()) -> ChildRun:
    """The reference solution's file graded exactly as a student's is, now, with the same limits (never cached):
    when a student's run fails in a way the grader might have caused, this run says whether the grader works at
    this moment."""
    return _fresh_run(problem, "control", seed, paths.REFERENCE / problem.swap.file, limits, inject_faults)


def misconception_of(path: Path) -> str:
    """The `MISCONCEPTION = "..."` literal of a mutant file (read, never executed here)."""
    tree = parse_python(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MISCONCEPTION" for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    raise GraderFault(f"{path}: a mutant must set MISCONCEPTION = '<id>'")


def appended(reference: str, label: str, delta: str) -> str:
    """A student file made of the reference's text with `delta`'s definitions appended after a `# ---- label ----`
    line: later definitions override (an instructor mutant; the project's test cases, tests/cases.py)."""
    return f"{reference}\n\n# ---- {label} ----\n{delta}"


def mutant_source(problem: ProblemSpec, path: Path) -> Path:
    """A mutant is the reference file with the mutant's definitions appended (they override)."""
    reference = (paths.REFERENCE / problem.swap.file).read_text(encoding="utf-8")
    composed = appended(reference, f"mutant: {path.name}", path.read_text(encoding="utf-8"))
    dest = cache_root() / "mutants" / problem.id / path.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.is_file() or dest.read_text(encoding="utf-8") != composed:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=dest.parent, suffix=".tmp", delete=False) as tmp:
            tmp.write(composed)
        sandbox.make_readable(Path(tmp.name))
        os.replace(tmp.name, dest)  # unique temp name: threads and processes may race here
    return dest


def mutant_run(problem: ProblemSpec, path: Path, seed: int = DEFAULT_SEED) -> Tuple[str, str, ChildRun]:
    """(mutant name, misconception id, run) for one instructor mutant of the problem."""
    return cast(Tuple[str, str, ChildRun], _mutant_run_or_none(problem, path, seed, wait=True))


def _mutant_run_or_none(problem: ProblemSpec, path: Path, seed: int,
                        wait: bool) -> Optional[Tuple[str, str, ChildRun]]:
    """`mutant_run`; without `wait`, None when another process is building its run now."""
    run = _cached_run_or_none(problem, f"mutant-{path.stem}", seed, mutant_source(problem, path), wait=wait)
    if run is None:
        return None
    if run.load_error or run.fault:
        raise GraderFault(f"mutant {path} of problem '{problem.id}' did not run: {run.load_error or run.fault}")
    return path.stem, misconception_of(path), run


def mutant_runs(problem: ProblemSpec, seed: int = DEFAULT_SEED) -> List[Tuple[str, str, ChildRun]]:
    """(mutant name, misconception id, run) for every instructor mutant of the problem, in their listed order, the
    missing runs built now: one child per core this process may use (`core_share`). A batch worker, whose share
    is one core, builds them one at a time and passes over those another worker is building (coming back to them
    after): two at once beside the other worker's child slowed that child by a third (`_one_at_a_time`)."""
    mutants = mutant_files(problem)
    if not mutants:
        return []
    if core_share() == 1:
        return _one_at_a_time(problem, mutants, seed)
    with ThreadPoolExecutor(max_workers=max(1, min(core_share(), len(mutants)))) as pool:
        return [future.result() for future in [pool.submit(mutant_run, problem, path, seed) for path in mutants]]


def _one_at_a_time(problem: ProblemSpec, mutants: Sequence[Path], seed: int) -> List[Tuple[str, str, ChildRun]]:
    """Each mutant's run read, or built here when no other process is building it; when every one left is being
    built elsewhere, the first of them waited for. Results in the listed order."""
    found: Dict[int, Tuple[str, str, ChildRun]] = {}
    while len(found) < len(mutants):
        left = [i for i in range(len(mutants)) if i not in found]
        for i in left:
            got = _mutant_run_or_none(problem, mutants[i], seed, wait=False)
            if got is not None:
                found[i] = got
        if all(i not in found for i in left):  # all being built by others: wait for one
            found[left[0]] = mutant_run(problem, mutants[left[0]], seed)
    return [found[i] for i in range(len(mutants))]


class MutantRuns:
    """The instructor mutants' runs of a problem (`mutant_runs`), read or built the first time they are asked for
    and kept: only a submission with failures no test named needs them (mutant matching), so a cold grading of a
    submission that has none waits for the reference's run alone. Built after the student's run, never beside it
    (the timing probe measures the student's code on a machine the grader does not load itself)."""

    def __init__(self, problem: ProblemSpec, seed: int = DEFAULT_SEED):
        self.problem, self.seed = problem, seed
        self._runs: Optional[List[Tuple[str, str, ChildRun]]] = None
        self._lock = threading.Lock()

    def __call__(self) -> List[Tuple[str, str, ChildRun]]:
        with self._lock:
            if self._runs is None:
                self._runs = mutant_runs(self.problem, self.seed)
            return self._runs


def baseline_runs(problem: ProblemSpec, seed: int = DEFAULT_SEED) -> Tuple[ChildRun, MutantRuns]:
    """The reference's run (`reference_run`) now, and the mutants' runs when first asked for (`MutantRuns`)."""
    return reference_run(problem, seed), MutantRuns(problem, seed)
