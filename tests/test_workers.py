"""graders.workers: a worker process that batch or the similarity screening starts dies with the process that
started it (a killed command leaves nothing running, nor holding its output folder's lock)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: a command that starts one worker as batch and similarity do (spawned, `die_with_parent`), busy for a minute,
#: prints the worker's pid and waits
COMMAND = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing
sys.path.insert(0, {root!r})
from graders.workers import die_with_parent

def busy():
    time.sleep(60)

if __name__ == "__main__":
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer={initializer},
                               initargs=(os.getpid(),))
    pool.submit(busy)
    while not pool._processes:
        time.sleep(0.01)
    print(next(iter(pool._processes)), flush=True)
    time.sleep(60)
"""


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead and not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _worker_after_the_command_is_killed(tmp_path: Path, initializer: str, wait: float) -> bool:
    """Whether the worker still runs `wait` seconds after its command was killed (or, alive, until then)."""
    script = tmp_path / "command.py"
    script.write_text(COMMAND.format(root=str(ROOT), initializer=initializer))
    command = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(command.stdout.readline())
        command.kill()
        command.wait()
        deadline = time.monotonic() + wait
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = _alive(worker)
    finally:
        command.kill()
    if alive:
        os.kill(worker, 9)
    return alive


def test_a_worker_dies_with_the_command_that_started_it(tmp_path):
    assert not _worker_after_the_command_is_killed(tmp_path, "die_with_parent", wait=10)


def test_without_it_the_worker_outlives_the_command(tmp_path):
    """The control: the same worker without `die_with_parent` is still running (what the test above rules out)."""
    assert _worker_after_the_command_is_killed(tmp_path, "None", wait=1)


def test_a_stopped_similarity_pool_kills_its_busy_workers_at_once():
    """What an interrupted screening (Ctrl-C) or one whose worker failed does with the others (`similarity._stop`):
    no wait for the shares still running (a second Ctrl-C during that wait left the process hanging at exit)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from graders import similarity
    from graders.workers import die_with_parent

    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent,
                               initargs=(os.getpid(),))
    busy = [pool.submit(time.sleep, 60) for _ in range(2)]
    while len(pool._processes) < 2 or not all(f.running() for f in busy):
        time.sleep(0.01)
    workers = list(pool._processes)
    started = time.monotonic()
    try:
        similarity._stop(pool)
        while any(_alive(pid) for pid in workers) and time.monotonic() - started < 10:
            time.sleep(0.05)
        assert not [pid for pid in workers if _alive(pid)] and time.monotonic() - started < 5
    finally:
        for pid in workers:  # a failure here leaves nothing running
            if _alive(pid):
                os.kill(pid, 9)
