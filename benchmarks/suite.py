"""Where the test suite's time goes: the CPU of every sandboxed run it makes, by problem, by test file, by test.

    python benchmarks/suite.py [--top N] [--log FILE] [-- PYTEST ARGS...]

Runs `python -m pytest` (the project's own settings: two workers) with AUTOGRADE_RUN_LOG set (graders.runlog:
one JSON line per child the grader runs, with the CPU seconds its control group counted), then prints the
suite's wall time, the sandboxed runs' CPU by problem and by kind (a student's file, the reference, a mutant),
the test files and the tests that spent the most of it. The suite is CPU-bound on two cores, so the sandboxed
CPU is most of its cost; what is left (the grader's own processes, venvs, pip, torch) is the machine's total
CPU minus it (`/proc/stat`, which neighbours on the same machine also move: a figure, not a test).
`--log FILE` only summarises a log written before (no run). Without control groups counting CPU (not root, or
no cpuacct) the runs are listed with no CPU figure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent


def machine_cpu_seconds() -> float:
    """Busy CPU seconds of the whole machine since boot (/proc/stat: every field but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    busy = sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)
    return busy / os.sysconf("SC_CLK_TCK")


def read_log(path: Path) -> List[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def totals(rows: List[dict], key) -> List[Tuple[str, int, float]]:
    """(group, runs, CPU seconds) per group of `key(row)`, most CPU first."""
    runs: Dict[str, int] = defaultdict(int)
    cpu: Dict[str, float] = defaultdict(float)
    for row in rows:
        group = key(row)
        runs[group] += 1
        cpu[group] += row.get("cpu_seconds") or 0.0
    return sorted(((g, runs[g], cpu[g]) for g in runs), key=lambda t: -t[2])


def kind_of(row: dict) -> str:
    kind = str(row.get("kind", ""))
    return "mutant" if kind.startswith("mutant") else kind


def print_table(title: str, table: List[Tuple[str, int, float]], top: int) -> None:
    print(f"\n{title}")
    for group, runs, cpu in table[:top]:
        print(f"  {cpu:8.1f} s CPU  {runs:4d} runs  {group}")
    if len(table) > top:
        print(f"  ... {len(table) - top} more")


def summarise(rows: List[dict], top: int) -> None:
    counted = [r for r in rows if r.get("cpu_seconds") is not None]
    cpu = sum(r["cpu_seconds"] for r in counted)
    print(f"sandboxed runs: {len(rows)} ({len(counted)} with a CPU figure), CPU {cpu:.1f} s, "
          f"mean {cpu / max(len(counted), 1):.2f} s")
    print_table("by problem", totals(rows, lambda r: str(r.get("problem"))), top)
    print_table("by kind", totals(rows, kind_of), top)
    print_table("by test file", totals(rows, lambda r: (r.get("test") or "(outside pytest)").split("::")[0]), top)
    print_table("by test", totals(rows, lambda r: r.get("test") or "(outside pytest)"), top)
    print(f"sandboxed_cpu_s={cpu:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=15, help="rows per table")
    parser.add_argument("--log", type=Path, help="summarise this run log instead of running the suite")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    if args.log:
        summarise(read_log(args.log), args.top)
        return 0
    log = Path(tempfile.mkdtemp(prefix="suite-cost-")) / "runs.jsonl"
    env = dict(os.environ, AUTOGRADE_RUN_LOG=str(log))
    started, machine = time.monotonic(), machine_cpu_seconds()
    code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest_args],
                           cwd=ROOT, env=env)
    wall, machine = time.monotonic() - started, machine_cpu_seconds() - machine
    rows = read_log(log) if log.is_file() else []
    print(f"\npytest exit {code}: wall {wall:.0f} s, machine CPU {machine:.0f} s (run log: {log})")
    summarise(rows, args.top)
    print(f"suite_wall_s={wall:.0f} machine_cpu_s={machine:.0f}")
    return code


if __name__ == "__main__":
    sys.exit(main())
