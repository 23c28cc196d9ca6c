"""Where the test suite's time goes: each test's CPU, and the CPU of every sandboxed run, by problem and by test.

    python benchmarks/suite.py [--top N] [--log DIR] [-- PYTEST ARGS...]

Runs `python -m pytest` (the project's own settings: two workers) with two logs: AUTOGRADE_RUN_LOG
(graders.runlog: one JSON line per child the grader runs, with the CPU seconds its control group counted) and
the `suite_cpu` plugin's (benchmarks/suite_cpu.py: each test phase's CPU, its worker's own and its waited-for
children's). It prints the suite's wall time and the machine's CPU over it (`/proc/stat`, which neighbours on the
same machine also move: a figure, not a test); the tests' CPU by test file and by test, beside the part spent in
sandboxed runs; and the sandboxed runs' CPU by problem and by kind (a student's file, the reference, a mutant).
The suite is CPU-bound on two cores, so its wall time is about its CPU over two. `--log DIR` only summarises the
logs of an earlier run (no run). Without control groups counting CPU (not root, or no cpuacct) the sandboxed runs
are listed with no CPU figure.
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
#: the two logs' names in the run's folder: the sandboxed runs' (graders.runlog) and the tests' (suite_cpu)
RUNS, TESTS = "runs.jsonl", "tests.jsonl"


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


def summarise_tests(rows: List[dict], runs: List[dict], top: int) -> None:
    """Each test's CPU by file and by test: its worker's (the process and the children it waited for, every
    phase) and its sandboxed runs' (their control groups': the kernel does not add a sandboxed tree to the
    worker's children), most of both first."""
    worker: Dict[str, float] = defaultdict(float)
    for row in rows:
        worker[row["test"]] += row.get("own", 0.0) + row.get("children", 0.0)
    boxed: Dict[str, float] = defaultdict(float)
    for run in runs:
        boxed[str(run.get("test") or "(outside pytest)")] += run.get("cpu_seconds") or 0.0
    print(f"tests: {len(worker)}, CPU {sum(worker.values()):.1f} s in the workers, "
          f"{sum(boxed.values()):.1f} s in sandboxed runs")
    for title, key in (("by test file", lambda t: t.split("::")[0]), ("by test", lambda t: t)):
        mine: Dict[str, float] = defaultdict(float)
        sandboxed: Dict[str, float] = defaultdict(float)
        for test, seconds in worker.items():
            mine[key(test)] += seconds
        for test, seconds in boxed.items():
            sandboxed[key(test)] += seconds
        names = sorted(set(mine) | set(sandboxed), key=lambda n: -(mine.get(n, 0.0) + sandboxed.get(n, 0.0)))
        print(f"\n{title} (CPU s: all = worker + sandboxed)")
        for name in names[:top]:
            print(f"  {mine.get(name, 0.0) + sandboxed.get(name, 0.0):8.1f} = {mine.get(name, 0.0):7.1f} + "
                  f"{sandboxed.get(name, 0.0):7.1f}  {name}")


def summarise(rows: List[dict], top: int) -> None:
    counted = [r for r in rows if r.get("cpu_seconds") is not None]
    cpu = sum(r["cpu_seconds"] for r in counted)
    print(f"sandboxed runs: {len(rows)} ({len(counted)} with a CPU figure), CPU {cpu:.1f} s, "
          f"mean {cpu / max(len(counted), 1):.2f} s")
    print_table("by problem", totals(rows, lambda r: str(r.get("problem"))), top)
    print_table("by kind", totals(rows, kind_of), top)
    print(f"sandboxed_cpu_s={cpu:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=15, help="rows per table")
    parser.add_argument("--log", type=Path, help="summarise the logs in this folder (of an earlier run) instead")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    if args.log:
        report(args.log, args.top)
        return 0
    folder = Path(tempfile.mkdtemp(prefix="suite-cost-"))
    here = str(Path(__file__).resolve().parent)
    env = dict(os.environ, AUTOGRADE_RUN_LOG=str(folder / RUNS), SUITE_CPU_LOG=str(folder / TESTS),
               PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    started, machine = time.monotonic(), machine_cpu_seconds()
    code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "suite_cpu",
                            *args.pytest_args], cwd=ROOT, env=env)
    wall, machine = time.monotonic() - started, machine_cpu_seconds() - machine
    print(f"\npytest exit {code}: wall {wall:.0f} s, machine CPU {machine:.0f} s (logs: {folder})")
    report(folder, args.top)
    print(f"suite_wall_s={wall:.0f} machine_cpu_s={machine:.0f}")
    return code


def report(folder: Path, top: int) -> None:
    runs = read_log(folder / RUNS) if (folder / RUNS).is_file() else []
    if (folder / TESTS).is_file():
        summarise_tests(read_log(folder / TESTS), runs, top)
        print()
    summarise(runs, top)


if __name__ == "__main__":
    sys.exit(main())
