"""Time limits that count the child's own time, not the machine's.

A process of the child is running, runnable but waiting for a CPU that another process holds, or asleep (on a pipe,
a sleep, a lock). A time limit is there to stop code that loops or sleeps; the time a runnable process waits for a
CPU is the machine's load (a TA's `batch --jobs 8` on two cores, a shared CI runner), not the code's. So when a
limit of W seconds passes, the parent looks at what the kernel says the child's threads did in that window
(/proc/<pid>/task/<tid>/schedstat: nanoseconds on a CPU, nanoseconds waited on a run queue; graded code cannot
change them) and stretches the limit while

    own time = wall time - time waited for a CPU  <  W    and    CPU time  <  W,

up to MAX_STRETCH times W. Code that loops uses W seconds of CPU however busy the machine is, and code that sleeps
waits for no CPU: both are stopped as before, their own fault. Threads of the child that wait for each other's CPU
add up to more than the window, but then the child's CPU time grows as fast as the wall clock on every core it
holds, so the CPU bound stops it at W seconds of CPU: the stretch never buys code more CPU than a quiet machine
gives it in W. Past MAX_STRETCH times W the machine is too busy to grade fairly: a failure of the machine, which is
the grader's, never the student's (graders.faults).

Not seen here: a virtual machine's CPUs slowed by its host (steal time) show as running, not as waiting.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Iterable, Optional

#: a limit stretches to at most this many times itself (wall clock)
MAX_STRETCH = 4.0
#: how often a stretched limit is looked at again (seconds)
STRETCH_STEP = 0.5


def run_queue_waits(pids: Iterable[int]) -> Dict[int, int]:
    """{thread id: nanoseconds it waited on a run queue, runnable, for a CPU} for every live thread of `pids`
    (the kernel's schedstat; a thread that ended takes its count with it)."""
    waits: Dict[int, int] = {}
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as handle:
                    waits[int(tid)] = int(handle.read().split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return waits


@dataclass
class Window:
    """A time limit being counted: from `started` (monotonic seconds), `limit` seconds of the child's own time, the
    child's CPU time and threads' run-queue waits as they were when it started."""

    started: float
    limit: float
    cpu_at_start: Optional[float] = None
    waits_at_start: Dict[int, int] = field(default_factory=dict)

    def waited(self, waits: Dict[int, int]) -> float:
        """Seconds the child's threads waited for a CPU since the window started (each thread's own increase)."""
        return sum(max(0, ns - self.waits_at_start.get(tid, 0)) for tid, ns in waits.items()) / 1e9

    def verdict(self, now: float, cpu: Optional[float], waits: Dict[int, int]) -> str:
        """At or past the limit: "stretch" (the child's own time is under the limit: look again at `until`),
        "over" (the child used its limit: its own loop or sleep) or "busy" (it waited for a CPU so long that
        even MAX_STRETCH times the limit passed: the machine's)."""
        wall = now - self.started
        used_cpu = cpu - self.cpu_at_start if cpu is not None and self.cpu_at_start is not None else None
        if used_cpu is not None and used_cpu >= self.limit:
            return "over"
        if wall - min(self.waited(waits), wall) >= self.limit:
            return "over"
        return "busy" if wall >= MAX_STRETCH * self.limit else "stretch"

    def until(self, now: float) -> float:
        """When a stretched limit is looked at again."""
        return min(now + STRETCH_STEP, self.started + MAX_STRETCH * self.limit)

    def stretched(self, now: float) -> float:
        """Seconds of wall clock given beyond the limit so far."""
        return max(0.0, now - self.started - self.limit)
