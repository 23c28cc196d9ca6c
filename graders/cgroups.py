"""One control group per sandboxed child: limits that hold for the whole process tree.

rlimits are per process: five forked children of 1200 MiB each pass a 1536 MiB
address-space limit. A control group bounds what the whole tree of one child
uses together: its memory (including the pages and inodes of its private tmpfs,
and the kernel memory charged to it) and its number of processes/threads.

Both cgroup layouts are handled:

- v2 (unified): a child group under the grader's own group, when that group
  delegates the `memory` and `pids` controllers (`cgroup.subtree_control`);
- v1 (one hierarchy per controller, e.g. a hybrid host): a child group under the
  grader's own group in the `memory` and `pids` hierarchies (and `cpuacct`, when
  mounted, for the CPU time of the whole tree).

Where neither can be created (not root, read-only cgroupfs, no delegation) the
sandbox runs without it and says so once; results record nothing different
because the per-process limits still apply.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set

CGROUP_ROOT = Path("/sys/fs/cgroup")
#: name prefix of every group this grader creates (stale ones are recognisable)
PREFIX = "autograde-"
#: how long `ProcessGroup.remove` keeps trying to remove a group whose tasks are leaving it
REMOVE_SECONDS = 10.0


def _own_paths() -> Dict[str, str]:
    """{controller or "" for v2: path of this process's group}, from /proc/self/cgroup."""
    paths: Dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _parents() -> Optional[Dict[str, Path]]:
    """{controller: directory new groups go under}, or None when no usable layout exists."""
    own = _own_paths()
    unified = CGROUP_ROOT / "cgroup.controllers"
    if unified.exists() and "" in own:  # pure v2
        parent = CGROUP_ROOT / own[""].lstrip("/")
        try:
            delegated = (parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            return None
        if {"memory", "pids"} <= set(delegated):
            return {"memory": parent, "pids": parent}
        return None
    found: Dict[str, Path] = {}
    for controller in ("memory", "pids", "cpuacct"):
        base = CGROUP_ROOT / controller
        if controller in own and (base / "cgroup.procs").exists():
            found[controller] = base / own[controller].lstrip("/")
    return found if {"memory", "pids"} <= set(found) else None


@dataclass
class ProcessGroup:
    """A control group (one directory per hierarchy) holding one child's whole process tree."""

    dirs: List[Path]
    v2: bool

    @property
    def procs_files(self) -> List[Path]:
        """The files a process writes its pid to, to join the group (every hierarchy)."""
        return [d / "cgroup.procs" for d in self.dirs]

    def limit(self, memory_bytes: int, processes: int) -> None:
        """Memory of the whole tree (v1: user and kernel memory together) and its task count."""
        if self.v2:
            (self.dirs[0] / "memory.max").write_text(str(memory_bytes))
            swap = self.dirs[0] / "memory.swap.max"
            if swap.exists():
                swap.write_text("0")
            (self.dirs[0] / "pids.max").write_text(str(processes))
            return
        memory, pids = self.dirs[:2]
        (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
        (pids / "pids.max").write_text(str(processes))

    def peak_bytes(self) -> Optional[int]:
        """Most memory the tree used at once (None where the kernel does not keep it)."""
        name = "memory.peak" if self.v2 else "memory.max_usage_in_bytes"
        try:
            return int((self.dirs[0] / name).read_text())
        except (OSError, ValueError):
            return None

    def oom_kills(self) -> int:
        """Processes of the tree the kernel killed for going over the group's memory limit (v2 memory.events,
        v1 memory.oom_control; 0 where the kernel does not say)."""
        name = "memory.events" if self.v2 else "memory.oom_control"
        try:
            for line in (self.dirs[0] / name).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def cpu_seconds(self) -> Optional[float]:
        """CPU time charged to every task that was ever in the group, however it ended (v2 cpu.stat
        usage_usec; v1 cpuacct.usage, when the cpuacct hierarchy is there); None where unavailable."""
        try:
            if self.v2:
                for line in (self.dirs[0] / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return None
            if len(self.dirs) == 3:
                return int((self.dirs[2] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None
        return None

    def pids(self) -> List[int]:
        found: Set[int] = set()
        for path in self.procs_files:
            try:
                found.update(int(p) for p in path.read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(found)

    def remove(self) -> None:
        """Kill whatever is left in the group, then remove it, retried for up to REMOVE_SECONDS: killed and
        reaped tasks leave a group lazily (on this machine within a few milliseconds of the child's end), so the
        pause between tries grows from 1 ms to 50 ms; a group still busy then is swept by a later `create`."""
        deadline = time.monotonic() + REMOVE_SECONDS
        pause = 0.001
        while True:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                for directory in self.dirs:
                    if directory.exists():
                        directory.rmdir()
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return
                threading.Event().wait(pause)
                pause = min(2 * pause, 0.05)


_said = threading.Event()
#: a group of ours this much older than any child lives is stale (its grader was killed before cleaning up)
STALE_SECONDS = 15 * 60


def _sweep(parents: Dict[str, Path]) -> None:
    """Remove empty groups of ours left by killed graders (only old ones: a new group is empty until
    its child joins)."""
    now = time.time()
    for parent in set(parents.values()):
        try:
            stale = [d for d in parent.glob(PREFIX + "*") if now - d.stat().st_mtime > STALE_SECONDS]
        except OSError:
            continue
        for directory in stale:
            try:
                if not (directory / "cgroup.procs").read_text().split():
                    directory.rmdir()
            except OSError:
                continue


def create(memory_mib: int, processes: int) -> Optional[ProcessGroup]:
    """A new group limited to `memory_mib` and `processes`, or None (said once on stderr)."""
    parents = _parents()
    if parents is None:
        _unavailable("no writable cgroup (v2 with memory+pids delegated, or v1 memory and pids)")
        return None
    _sweep(parents)
    name = PREFIX + secrets.token_hex(6)
    v2 = parents["memory"] == parents["pids"]
    dirs = [parents["memory"] / name] if v2 else [parents[c] / name for c in ("memory", "pids", "cpuacct")
                                                  if c in parents]
    group = ProcessGroup(dirs=[], v2=v2)
    try:
        for directory in dirs:
            directory.mkdir()
            group.dirs.append(directory)
        group.limit(memory_mib * 1024 * 1024, processes)
    except OSError as exc:
        group.remove()
        _unavailable(f"cannot create a cgroup under {dirs[0].parent}: {exc}")
        return None
    return group


def _unavailable(why: str) -> None:
    if not _said.is_set():
        _said.set()
        print(f"autograde: no control group per sandbox ({why}): memory and process limits are per process only",
              file=sys.stderr)
    return None
