"""Every figure of the performance table (issue 23) in one run, each against its goal.

    python benchmarks/all.py [--size 16] [--quick]

Runs, each in its own process: `grading.py` (a warm grading of the reference, its tree's peak memory, and a
cold one with an empty cache), `batch.py --size N` (submissions per minute with --jobs 1 and 2), the first
result of a cold `autograde batch` (an empty cache: how long until the first student's results.json is
written), `framework.py` (one HW2 training step against torch's fastest CPU configuration; skipped without
torch) and `similarity.py` (a class of 500). `--quick`: a class of 4 and 100 for the batch and similarity
figures, fewer training steps (for checking that everything runs, not for the figures). Then the table.

Figures on a shared machine are noisy: run it on a quiet one, and look at the spread of a few runs before
quoting one.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))


def run(script: str, *args: str) -> str:
    """The script's standard output, shown as it ends (its standard error goes to ours)."""
    print(f"$ python benchmarks/{script} {' '.join(args)}", flush=True)
    done = subprocess.run([sys.executable, str(HERE / script), *args], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    print(done.stdout, flush=True)
    if done.returncode != 0:
        print(f"{script} ended with status {done.returncode}", file=sys.stderr)
    return done.stdout


def number(pattern: str, text: str) -> Optional[float]:
    found = re.search(pattern, text)
    return float(found.group(1).replace(",", "")) if found else None


def first_cold_result(size: int) -> float:
    """Seconds from starting `autograde batch` on a class of `size` with an empty cache to the first student's
    results.json on disk."""
    from batch import build_class

    with tempfile.TemporaryDirectory(prefix="bench-first-") as tmp:
        subs, out = build_class(Path(tmp) / "subs", size), Path(tmp) / "out"
        env = {**os.environ, "AUTOGRADE_CACHE": str(Path(tmp) / "cache")}
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "graders", "batch", str(subs), "--out", str(out)], cwd=ROOT,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while proc.poll() is None and not any(out.glob("*/results.json")):
                time.sleep(0.05)
            return time.monotonic() - started
        finally:
            proc.kill()
            proc.wait()


def table(rows: List[Tuple[str, str, str]]) -> str:
    width = max(len(r[0]) for r in rows)
    lines = [f"{'figure':{width}s} | {'now':>22s} | goal", f"{'-' * width}-|-{'-' * 22}-|-----"]
    lines += [f"{name:{width}s} | {now:>22s} | {goal}" for name, now, goal in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16, help="submissions in the batch benchmark's class")
    parser.add_argument("--quick", action="store_true", help="small classes and few steps: check that it runs")
    args = parser.parse_args()
    size, class_of = (4, 100) if args.quick else (args.size, 500)
    got: Dict[str, Optional[float]] = {}

    text = run("grading.py")
    got["warm"], got["cold"], got["peak"] = (number(r"grade_wall_s=([\d.]+)", text),
                                            number(r"cold_wall_s=([\d.]+)", text), number(r"peak_mib=([\d.]+)", text))
    text = run("batch.py", "--size", str(size))
    got["jobs1"] = number(r"--jobs 1:.*?([\d.]+) submissions/minute", text)
    got["jobs2"] = number(r"--jobs 2:.*?([\d.]+) submissions/minute", text)
    got["first"] = first_cold_result(2 if args.quick else 4)
    try:
        import torch  # noqa: F401
    except ImportError:
        got["framework"] = None
        print("framework.py skipped: torch is not installed (pip install torch==2.13.0)", file=sys.stderr)
    else:
        text = run("framework.py", "--no-slow", *(["--steps", "50", "--warmup", "5"] if args.quick else []))
        got["framework"] = number(r"ratio_vs_torch=([\d.]+)", text)
    text = run("similarity.py", "--size", str(class_of))
    got["similarity"] = number(r"pairs\): ([\d.]+) s wall", text)

    def shown(key: str, unit: str, digits: int = 2) -> str:
        value = got.get(key)
        return "not measured" if value is None else f"{value:.{digits}f} {unit}".strip()

    speedup = f"x{got['jobs2'] / got['jobs1']:.2f}" if got.get("jobs1") and got.get("jobs2") else "not measured"
    print()
    print(table([
        ("grade the reference, warm cache", shown("warm", "s") + f", peak {shown('peak', 'MiB', 0)}", "<= 2.0 s"),
        ("first grading, empty cache", shown("cold", "s"), "<= 8 s"),
        (f"batch --jobs 2 (class of {size})", shown("jobs2", "/min", 1) + f" ({speedup})", ">= 62/min, x1.8 kept"),
        ("first result of a cold batch", shown("first", "s"), "<= 5 s"),
        ("HW2 train step vs fastest torch CPU", shown("framework", "x"), "<= 1.2x"),
        (f"similarity, {class_of} submissions", shown("similarity", "s"), "<= 10 s"),
    ]))


if __name__ == "__main__":
    main()
