"""Batch throughput: submissions per minute with --jobs 1 and --jobs 2 on the same class.

    python benchmarks/batch.py [--size 8] [--problems autodiff,ops,network,training] [--repeat 1]

Builds a class of `--size` submissions (copies of the reference, the blank
template and hand-made buggy variants), grades it once to warm the cache, then
times `batch --regrade` with one and with two workers and prints both rates and
their ratio (the goal on a 2-core machine is at least 1.7).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders.batch import BatchOptions, run_batch  # noqa: E402

FILES = ("minitorch/autodiff.py", "minitorch/tensor_functions.py", "project/run_sentiment.py")
FANOUT = "adjoints[parent.unique_id] = adjoints[parent.unique_id] + d_parent"


def _copy(dest: Path, base: Path) -> None:
    for rel in FILES:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base / rel, dest / rel)


def _reference(dest: Path) -> None:
    _copy(dest, ROOT / "reference")


def _template(dest: Path) -> None:
    _copy(dest, ROOT / "student_template")


def _fanout_bug(dest: Path) -> None:
    _copy(dest, ROOT / "reference")
    path = dest / "minitorch/autodiff.py"
    path.write_text(path.read_text().replace(FANOUT, "adjoints[parent.unique_id] = d_parent"))


def _half_done(dest: Path) -> None:
    """Autodiff and ops solved, the network and training left as the template."""
    _copy(dest, ROOT / "student_template")
    for rel in FILES[:2]:
        shutil.copyfile(ROOT / "reference" / rel, dest / rel)


VARIANTS: List[Callable[[Path], None]] = [_reference, _fanout_bug, _half_done, _reference, _template]


def build_class(root: Path, size: int) -> Path:
    for index in range(size):
        VARIANTS[index % len(VARIANTS)](root / f"student{index:03d}")
    return root


def timed(subs: Path, out: Path, jobs: int, problems: List[str] | None) -> Tuple[float, int]:
    started = time.monotonic()
    run = run_batch(subs, out, BatchOptions(problems=problems, jobs=jobs, regrade=True, progress=False))
    return time.monotonic() - started, len(run.graded)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8, help="submissions in the class (default 8)")
    parser.add_argument("--problems", default=None, help="comma-separated problem ids (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting; the best is kept")
    args = parser.parse_args()
    problems = [p for p in args.problems.split(",") if p] if args.problems else None
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        subs = build_class(Path(tmp) / "subs", args.size)
        out = Path(tmp) / "out"
        warm, _ = timed(subs, out, 2, problems)
        print(f"class of {args.size} submissions, problems: {args.problems or 'all'}, cores: {os.cpu_count()}")
        print(f"warm-up (cache fill) run: {warm:.1f} s")
        rates = {}
        for jobs in (1, 2):
            best = min(timed(subs, out, jobs, problems)[0] for _ in range(max(1, args.repeat)))
            rates[jobs] = 60 * args.size / best
            print(f"--jobs {jobs}: {best:6.1f} s  {rates[jobs]:6.1f} submissions/minute")
        print(f"speed-up --jobs 2 / --jobs 1: {rates[2] / rates[1]:.2f} (goal >= 1.7 on 2 cores)")


if __name__ == "__main__":
    main()
