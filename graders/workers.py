"""Worker processes a grader command starts (batch's graders, similarity's fingerprinters): how many cores there
are for them (the mutants' runs count them too), that they end with the command, and that they start without its
folder on their path."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from typing import Iterator, Optional

#: the children one worker of a pool may run at once (`worker_start`); None outside a pool: all the cores
_SHARE: Optional[int] = None


def cores() -> int:
    """The CPU cores this process may run on (its affinity; the machine's count where that is unknown)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def core_share() -> int:
    """How many children this process may run at once: its pool's share of the cores (`worker_start`), else all of
    them (a lone `grade`)."""
    return _SHARE or cores()


def worker_start(parent: int, workers: int) -> None:
    """A pool worker's start-up: `die_with_parent`, and its share of the cores, cores // workers (at least 1)."""
    global _SHARE
    die_with_parent(parent)
    _SHARE = max(1, cores() // max(1, workers))


def die_with_parent(parent: int) -> None:
    """Worker start-up: SIGKILL this worker when `parent` (the command's process) dies, so that a killed command
    leaves nothing running (each worker's sandboxes die with it in turn); exit at once when it died before the
    request took effect."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


@contextmanager
def safe_path_children() -> Iterator[None]:
    """Python processes started inside this block (spawned workers) do not put their current folder first on
    `sys.path` (PYTHONSAFEPATH): a `selectors.py` or `queue.py` in the folder a TA runs the command from is not
    run by them as the standard library's. Restored after."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = before
