"""Stability under load: does a valid solution ever lose a point to a busy machine?

Grades the reference (every problem) and every valid case of every problem that expects full marks
(`problems/<id>/valid/`, tests/cases.py: those without FAILS or LABELS) N times while the CPUs are
oversubscribed (by default two busy processes per core: half spinning in Python, half streaming memory with
NumPy), and prints every point lost: the false losses. The quadratic cases (the instructor mutants and
autodiff's buggy cases that expect `quadratic-traversal`) are graded under the same load and must lose their
time points every time.

Prints figures, not a verdict for CI:
    valid: <cases> cases x <runs> runs = <gradings> gradings; false losses: <k>
    quadratic: <cases> cases x <runs> runs; time points lost <m> of <m'>

Usage: python benchmarks/stability.py [--runs 10] [--hogs-per-core 2] [--hog mixed|cpu|memory] [--only valid|quadratic]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from cases import problem_cases  # noqa: E402
from graders.baseline import mutant_source  # noqa: E402
from graders.grade import GradeOptions, grade_submission  # noqa: E402
from graders.offering import grading_offering  # noqa: E402
from graders.spec import load_problems  # noqa: E402

TIME_TEST = ("autodiff", "time_doubling")


@dataclass(frozen=True)
class Case:
    """One submission folder graded on some problems of an offering."""

    name: str
    folder: Path
    offering: str
    problems: Tuple[str, ...]


# ------------------------------------------------------------------ the cases


def _single_file(work: Path, name: str, rel: str, source: Path) -> Path:
    folder = work / name
    (folder / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, folder / rel)
    return folder


def valid_cases(work: Path) -> List[Case]:
    cases = [Case("reference", ROOT / "reference", "all", tuple(s.id for s in load_problems()))]
    for case in problem_cases(("valid",)):
        if case.fails or case.labels:  # a valid case that says it loses points
            continue
        folder = case.build(work / case.id.replace("/", "-"))
        cases.append(Case(case.id, folder, case.offering or grading_offering(case.problem.id), (case.problem.id,)))
    return cases


def quadratic_cases(work: Path) -> List[Case]:
    """Submissions that are quadratic in time: the problem's buggy cases and the instructor mutants naming it."""
    spec = next(s for s in load_problems() if s.id == TIME_TEST[0])
    cases = [Case(c.id, c.build(work / c.id.replace("/", "-")), "all", (spec.id,))
             for c in problem_cases(("buggy",)) if c.problem.id == spec.id and c.expect == "quadratic-traversal"]
    for path in sorted((spec.folder / "mutants").glob("*.py")):
        if "quadratic-traversal" in path.read_text(encoding="utf-8"):
            folder = _single_file(work, f"mutant-{path.stem}", spec.swap.file, mutant_source(spec, path))
            cases.append(Case(f"mutant {path.stem}", folder, "all", (spec.id,)))
    return cases


# ------------------------------------------------------------------ the load


def _spin() -> None:
    while True:
        pass


def _stream_memory() -> None:
    import numpy as np

    a, b = np.ones(8_000_000), np.empty(8_000_000)
    while True:
        np.multiply(a, 1.0000001, out=b)
        a, b = b, a


def start_hogs(per_core: int, kind: str) -> List[multiprocessing.Process]:
    cores = len(os.sched_getaffinity(0))
    targets = {"cpu": [_spin], "memory": [_stream_memory], "mixed": [_spin, _stream_memory]}[kind]
    hogs = [multiprocessing.Process(target=targets[i % len(targets)], daemon=True) for i in range(per_core * cores)]
    for hog in hogs:
        hog.start()
    return hogs


# ------------------------------------------------------------------ grading


def lost_points(case: Case) -> List[Tuple[str, str, str]]:
    """(problem, test, message) of every test the case did not pass; a grader fault counts as lost."""
    result = grade_submission(case.folder, GradeOptions(offering=case.offering, problems=list(case.problems)))
    lost = []
    for problem in result.problems:
        if problem.fault:
            lost.append((problem.id, "*", f"GRADER FAULT: {problem.fault.splitlines()[0]}"))
        lost += [(problem.id, t.id, t.message) for t in problem.tests if not t.passed]
    return lost


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="gradings of each case (default 10)")
    parser.add_argument("--hogs-per-core", type=int, default=2, help="busy processes per core (default 2)")
    parser.add_argument("--hog", choices=["mixed", "cpu", "memory"], default="mixed")
    parser.add_argument("--only", choices=["valid", "quadratic"], default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="stability-") as tmp:
        work = Path(tmp)
        valid = [] if args.only == "quadratic" else valid_cases(work)
        quadratic = [] if args.only == "valid" else quadratic_cases(work)
        print(f"{len(valid)} valid cases, {len(quadratic)} quadratic cases; warming the cache (no load)", flush=True)
        for case in valid[:1] + quadratic[:1]:
            lost_points(case)
        hogs = start_hogs(args.hogs_per_core, args.hog)
        print(f"load: {len(hogs)} busy processes ({args.hog}) on {len(os.sched_getaffinity(0))} cores", flush=True)
        false_losses: Dict[str, List[Tuple[int, str, str, str]]] = {}
        time_kept: Dict[str, int] = {}
        started = time.monotonic()
        try:
            for run in range(1, args.runs + 1):
                for case in valid:
                    for problem, test, message in lost_points(case):
                        false_losses.setdefault(case.name, []).append((run, problem, test, message))
                for case in quadratic:
                    kept = not any((p, t) == TIME_TEST for p, t, _ in lost_points(case))
                    time_kept[case.name] = time_kept.get(case.name, 0) + kept
                lost_now = sum(len(v) for v in false_losses.values())
                print(f"run {run}/{args.runs} done at {time.monotonic() - started:.0f} s: false losses so far "
                      f"{lost_now}; load average {os.getloadavg()[0]:.1f}", flush=True)
        finally:
            for hog in hogs:
                hog.terminate()
    for name, losses in sorted(false_losses.items()):
        for run, problem, test, message in losses:
            print(f"  FALSE LOSS {name} (run {run}) {problem}/{test}: {message[:200]}")
    for name, kept in sorted(time_kept.items()):
        if kept:
            print(f"  QUADRATIC KEPT TIME POINTS {name}: {kept} of {args.runs} runs")
    gradings = len(valid) * args.runs
    print(f"valid: {len(valid)} cases x {args.runs} runs = {gradings} gradings; "
          f"false losses: {sum(len(v) for v in false_losses.values())}")
    if quadratic:
        total = len(quadratic) * args.runs
        print(f"quadratic: {len(quadratic)} cases x {args.runs} runs; "
              f"time points lost {total - sum(time_kept.values())} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
