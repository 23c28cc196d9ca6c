"""Grading cost: wall time and peak memory of grading one submission, and sandbox start overhead.

Prints figures (not a test):
  - `autograde grade reference` with an empty cache (`AUTOGRADE_CACHE` a new folder): the first grading's wall
    time, reference and mutant runs built (goal: <= 8 s);
  - `autograde grade reference` with a warm cache: median wall time of 3 runs and the
    peak resident memory of the whole process tree (grader + sandboxed children),
    sampled every 10 ms from /proc (goals: <= 15 s, <= 768 MiB);
  - the start overhead of the sandbox (prlimit + bwrap + setpriv + python -c "import numpy")
    against a bare `python -c "import numpy"`, median of 20 each (goal: <= +100 ms).

Usage: python benchmarks/grading.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders import sandbox  # noqa: E402


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def grade_once(out: Path, cache: Optional[Path] = None) -> tuple[float, float]:
    """(wall seconds, peak MiB of the process tree) of one `autograde grade reference` (with `cache` as its
    AUTOGRADE_CACHE, else the usual one)."""
    env = {**os.environ, "AUTOGRADE_CACHE": str(cache)} if cache is not None else None
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "graders", "grade", "reference", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, sum(rss_kib(p) for p in descendants(proc.pid)))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    proc.wait()
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"grading failed with exit code {proc.returncode}")
    return time.perf_counter() - start, peak / 1024


def median_seconds(command: list[str], runs: int = 20) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={"PATH": "/usr/bin:/bin"})
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    out = Path("/tmp/autograde-bench")
    with tempfile.TemporaryDirectory() as empty:
        cold, _ = grade_once(out, Path(empty))
    print(f"grade reference (empty cache): wall {cold:.2f} s")
    grade_once(out)  # warm the reference/mutant cache
    runs = [grade_once(out) for _ in range(3)]
    wall = statistics.median(r[0] for r in runs)
    peak = max(r[1] for r in runs)
    print(f"grade reference (warm cache): median wall {wall:.2f} s, peak memory of the process tree {peak:.0f} MiB")
    # this Python as invoked (a venv's finds its own site-packages), against the sandbox's view of it: the base
    # interpreter, with a venv's packages at the extra import paths the harness would add
    bare = median_seconds([sys.executable, *sandbox.PYTHON_FLAGS, "-c", "import numpy"])
    caps = sandbox.capabilities()
    if caps.strong:
        with sandbox.UidSlot() as slot, tempfile.TemporaryDirectory() as scratch:
            _, extra = sandbox.bwrap_command({}, slot.uid, Path(scratch), program=["-c", "pass"])
            program = ["-c", f"import sys; sys.path[:0] = {list(extra)!r}; import numpy"]
            argv, _ = sandbox.bwrap_command({}, slot.uid, Path(scratch), program=program)
            prefix = sandbox.confine_prefix(Path(scratch), [], 64, 4096)
            prlimit = ["prlimit", "--cpu=60", f"--as={1024**3}", "--nproc=64", "--core=0", "--"]
            boxed = median_seconds(prefix + prlimit + argv)
        print(f"python -c 'import numpy': bare {bare * 1000:.0f} ms, in the sandbox {boxed * 1000:.0f} ms, "
              f"overhead {(boxed - bare) * 1000:+.0f} ms")
        print(f"sandbox_overhead_ms={(boxed - bare) * 1000:.0f}")
    else:
        print("strong sandbox unavailable here: " + "; ".join(caps.missing()))
    print(f"grade_wall_s={wall:.2f} cold_wall_s={cold:.2f} peak_mib={peak:.0f}")


if __name__ == "__main__":
    main()
