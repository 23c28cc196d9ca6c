"""Time limits under load: does honest code lose points because the machine is busy?

Grades the reference on every problem (offering "all") once with no load, sets each problem's probe limit to
twice its slowest probe there (so that the load, not the code, decides), then grades it again with the grading and
N spinning processes pinned to one CPU (the grading gets about 1/(N+1) of it), and prints the points lost per
problem. Time limits count the child's own time (graders/waiting.py): the figure to expect is 0 lost. With
--no-stretch the limits count wall time as they did before, to show what the stretch keeps.

Prints figures, not a verdict for CI:
    <problem>: limit <s> s, <points> / <max> (lost <k>), <wall> s
    points lost under load: <k> of <total>

Usage: python benchmarks/limits.py [--spinners 3] [--no-stretch]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders import waiting  # noqa: E402
from graders.grade import GradeOptions, grade_submission  # noqa: E402

#: every problem the grader has
OFFERING = "all"
CPU = min(os.sched_getaffinity(0))


def _spin() -> None:
    """Spin on CPU, in a session of its own: with autogroup scheduling the kernel shares a CPU between sessions
    first, and each sandboxed child is a session of its own (as the other jobs of a batch are)."""
    os.setsid()
    os.sched_setaffinity(0, {CPU})
    while True:
        pass


def _no_stretch() -> None:
    """Limits that count wall time (the grader before graders.waiting): a stretch is read as the limit passed."""
    verdict = waiting.Window.verdict

    def wall_only(self: waiting.Window, now: float, cpu: Optional[float], waits: dict) -> str:
        found = verdict(self, now, cpu, waits)
        return "over" if found == "stretch" else found

    waiting.Window.verdict = wall_only  # type: ignore[method-assign]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spinners", type=int, default=3, help="busy processes on the grading's CPU (default 3)")
    parser.add_argument("--no-stretch", action="store_true", help="limits count wall time (as before)")
    args = parser.parse_args(argv)
    if args.no_stretch:
        _no_stretch()
    quiet = grade_submission(ROOT / "reference", GradeOptions(offering=OFFERING))
    limits = {p.id: float(max(1, math.ceil(2 * max(t.seconds for t in p.tests)))) for p in quiet.problems}
    os.sched_setaffinity(0, {CPU})  # the grading's children inherit it
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.spinners)]
    for spinner in spinners:
        spinner.start()
    print(f"load: the grading and {args.spinners} spinning processes on CPU {CPU}"
          f"{'; limits count wall time (--no-stretch)' if args.no_stretch else ''}", flush=True)
    lost = total = 0.0
    try:
        for problem_id, limit in limits.items():
            started = time.monotonic()
            (result,) = grade_submission(ROOT / "reference", GradeOptions(
                offering=OFFERING, problems=[problem_id], limits={"probe_seconds": limit})).problems
            lost += result.max_score - result.score
            total += result.max_score
            why = [t.message[:90] for t in result.tests if t.score < t.max_score][:1]
            print(f"{problem_id}: limit {limit:g} s, {result.score:g} / {result.max_score:g} "
                  f"(lost {result.max_score - result.score:g}{', grader fault' if result.fault else ''}), "
                  f"{time.monotonic() - started:.1f} s {why[0] if why else ''}", flush=True)
    finally:
        for spinner in spinners:
            spinner.terminate()
    print(f"points lost under load: {lost:g} of {total:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
