"""The trusted runs the judge compares against: the reference and the instructor's mutants.

Both are computed by the same harness as a submission (so they see the same
probe inputs), once per grader version and seed, and cached as JSON.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from . import paths, sandbox
from .assemble import cache_root, cached_dir, child_dir, locked, mutant_files, probes_dir, stack_for, swap_for
from .intake import parse_python
from .probe import ChildConfig, ChildLimits, ChildRun, ProbeOutcome, run_child
from .spec import ProblemSpec, problem_module

DEFAULT_SEED = 2026


class GraderFault(RuntimeError):
    """The reference itself failed a probe: the grader, not the student, is wrong."""


def limits_for(problem: ProblemSpec, tighter: Optional[Dict[str, float]] = None) -> ChildLimits:
    """The child's limits from problem.toml, optionally tightened (never loosened)."""
    lim = problem.limits
    values = {
        "wall_seconds": lim.wall_seconds,
        "probe_seconds": lim.probe_seconds,
        "cpu_seconds": lim.cpu_seconds,
        "memory_mib": lim.memory_mib,
    }
    for key, value in (tighter or {}).items():
        if key not in values:
            raise ValueError(f"unknown limit '{key}'")
        values[key] = type(values[key])(min(values[key], value))
    return ChildLimits(**values)


def problem_hooks(problem: ProblemSpec) -> Any:
    """The problem's parent-side module `judges.py` (custom judges, input preparation), if any."""
    return problem_module(problem, "judges.py")


def inputs_dir(problem: ProblemSpec) -> Optional[Path]:
    """Probe inputs the parent prepares (e.g. training data without validation labels)."""
    hooks = problem_hooks(problem)
    if hooks is None or not hasattr(hooks, "prepare_inputs"):
        return None
    return cached_dir(f"inputs/{problem.id}", hooks.prepare_inputs)


def child_config(problem: ProblemSpec, workdir: Path, seed: int, student_file: Optional[Path]) -> ChildConfig:
    """The harness configuration for a submission (or, with no file, the reference)."""
    swap = swap_for(problem, student_file).as_config() if student_file is not None else None
    return ChildConfig(
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
    outcomes = {k: ProbeOutcome(**v) for k, v in data.pop("outcomes").items()}
    return ChildRun(outcomes=outcomes, **data)


def _probes_digest(problem: ProblemSpec) -> str:
    """A short digest of what a run depends on that an offering may change: the probes and the swap."""
    probes = "\0".join(dict.fromkeys(t.probe for t in problem.tests)) + "\1" + "\0".join(problem.swap.symbols)
    return hashlib.sha256(probes.encode()).hexdigest()[:10]


def _cached_run(problem: ProblemSpec, label: str, seed: int, student_file: Optional[Path]) -> ChildRun:
    label = f"{label}-{_probes_digest(problem)}"
    path = cache_root() / "runs" / problem.id / f"{label}-{seed}.json"
    if path.is_file():
        return run_from_json(json.loads(path.read_text()))
    with locked(cache_root() / "locks" / f"run-{problem.id}-{label}-{seed}"):
        if path.is_file():
            return run_from_json(json.loads(path.read_text()))
        workdir = cache_root() / "work" / problem.id / f"{label}-{os.getpid()}"
        shutil.rmtree(workdir, ignore_errors=True)
        run = run_child(child_config(problem, workdir, seed, student_file), limits_for(problem))
        shutil.rmtree(workdir, ignore_errors=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(run_to_json(run)))
        tmp.replace(path)
    return run


def reference_run(problem: ProblemSpec, seed: int = DEFAULT_SEED) -> ChildRun:
    """The probes on the full reference; every probe must succeed."""
    run = _cached_run(problem, "reference", seed, None)
    failed = [o for o in run.outcomes.values() if not o.ok]
    if failed or run.fault:
        details = "; ".join(f"{o.probe}: {o.describe()}" for o in failed[:3]) or run.fault
        raise GraderFault(f"reference run of problem '{problem.id}' failed: {details}")
    return run


def misconception_of(path: Path) -> str:
    """The `MISCONCEPTION = "..."` literal of a mutant file (read, never executed here)."""
    tree = parse_python(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MISCONCEPTION" for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    raise GraderFault(f"{path}: a mutant must set MISCONCEPTION = '<id>'")


def mutant_source(problem: ProblemSpec, path: Path) -> Path:
    """A mutant is the reference file with the mutant's definitions appended (they override)."""
    reference = (paths.REFERENCE / problem.swap.file).read_text(encoding="utf-8")
    composed = reference + "\n\n# ---- mutant: " + path.name + " ----\n" + path.read_text(encoding="utf-8")
    dest = cache_root() / "mutants" / problem.id / path.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.is_file() or dest.read_text(encoding="utf-8") != composed:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=dest.parent, suffix=".tmp", delete=False) as tmp:
            tmp.write(composed)
        sandbox.make_readable(Path(tmp.name))
        os.replace(tmp.name, dest)  # unique temp name: threads and processes may race here
    return dest


def mutant_runs(problem: ProblemSpec, seed: int = DEFAULT_SEED) -> List[Tuple[str, str, ChildRun]]:
    """(mutant name, misconception id, run) for every instructor mutant of the problem."""
    runs = []
    for path in mutant_files(problem):
        source = mutant_source(problem, path)
        run = _cached_run(problem, f"mutant-{path.stem}", seed, source)
        if run.load_error or run.fault:
            raise GraderFault(f"mutant {path} of problem '{problem.id}' did not run: {run.load_error or run.fault}")
        runs.append((path.stem, misconception_of(path), run))
    return runs
