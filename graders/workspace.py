"""Scratch space for grading: one private folder per grading, removed afterwards (or by the next grader).

Submissions are staged and children write their outputs under WORK_BASE (one folder per user), in
`<pid>-<random>` folders that `workspace_dir` makes and removes; a grader killed before removing its folder
leaves it to the next one (`sweep_stale_workspaces`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: where graders stage submissions and child outputs: one folder per user (a TA grading after root on the
#: same machine must not meet root's folder), <pid>-<random> per grading inside it
WORK_BASE = Path(tempfile.gettempdir()) / f"autograde-work-{os.getuid()}"


def work_base() -> Path:
    """This user's WORK_BASE, created if needed. Refused (with the folder named) when someone else owns it or
    can write to it: a folder another user made in /tmp could read or swap what is graded."""
    WORK_BASE.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = WORK_BASE.lstat()
    if WORK_BASE.is_symlink() or info.st_uid != os.getuid():
        raise PermissionError(f"{WORK_BASE} is not a folder of this user (owner uid {info.st_uid}): "
                              "remove it or set TMPDIR")
    if info.st_mode & 0o022:
        WORK_BASE.chmod(0o755)  # ours, but writable by others (an old umask): no longer
    return WORK_BASE


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_workspaces() -> None:
    """Remove workspaces left by graders that were killed (their pid is gone)."""
    if not WORK_BASE.is_dir():
        return
    for entry in work_base().iterdir():
        pid = entry.name.partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


@contextmanager
def workspace_dir() -> Iterator[Path]:
    """A private scratch directory, removed afterwards (or by the next grader if this one is killed)."""
    base = work_base()
    sweep_stale_workspaces()
    path = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
