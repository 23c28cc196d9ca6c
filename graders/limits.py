"""The resource limits of a problem's sandboxed child: one type, from `problem.toml` to `prlimit`.

A problem sets the limits of `PROBLEM_LIMITS` in the `[limits]` table of its problem.toml (graders.schema
declares that table from the fields here); the others are the grader's. Imports nothing of the grader, so
the specs (graders.spec) and the child runner (graders.probe) can both use it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Mapping, Optional


@dataclass(frozen=True)
class Limits:
    """Resource limits of one problem's sandboxed child (every restart of it)."""

    #: the whole run of the problem's probes, restarts included, in wall-clock seconds
    wall_seconds: float = 60.0
    #: one probe, in wall-clock seconds
    probe_seconds: float = 20.0
    #: CPU time of the child (`prlimit --cpu`)
    cpu_seconds: int = 120
    #: address space of the child (`prlimit --as`), and its control group's memory
    memory_mib: int = 1024
    #: largest file the child may write
    file_mib: int = 8
    open_files: int = 256
    #: restarts of the child after a probe killed it
    max_restarts: int = 4
    #: processes and threads of the slot uid (strong sandbox only)
    processes: int = 64
    #: size of each private tmpfs (/work, /tmp) in the strong sandbox
    tmp_mib: int = 64
    #: inodes (files and folders) of each private tmpfs: their kernel memory is not in its byte size
    tmp_inodes: int = 4096

    def tightened(self, tighter: Optional[Mapping[str, float]] = None) -> Limits:
        """These limits with some of the problem's own made tighter, never looser (`{"probe_seconds": 3}`)."""
        values = {}
        for key, value in (tighter or {}).items():
            if key not in PROBLEM_LIMITS:
                raise ValueError(f"unknown limit '{key}'")
            current = getattr(self, key)
            values[key] = type(current)(min(current, value))
        return dataclasses.replace(self, **values)


#: the limits a problem sets in the [limits] table of its problem.toml
PROBLEM_LIMITS = ("wall_seconds", "probe_seconds", "cpu_seconds", "memory_mib")
