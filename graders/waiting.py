"""Time limits that count the child's own time, not the machine's.

A process of the child is running, runnable but waiting for a CPU that another process holds, or asleep (on a pipe,
a sleep, a lock). A time limit is there to stop code that loops or sleeps; the time a runnable process waits for a
CPU is the machine's load (a TA's `batch --jobs 8` on two cores, a shared CI runner), not the code's. So when a
limit of W seconds passes, the parent looks at what the kernel says the child's threads did in that window
(/proc/<pid>/task/<tid>/schedstat: nanoseconds on a CPU, nanoseconds waited on a run queue; graded code cannot
change them) and stretches the limit while

    own time = wall time - the two longest waits of one thread each for a CPU  <  W    and    CPU time  <  W,

up to MAX_STRETCH times W. Code that loops uses W seconds of CPU however busy the machine is, and code that sleeps
waits for no CPU: both are stopped as before, their own fault. Past MAX_STRETCH times W the machine is too busy to
grade fairly: a failure of the machine, which is the grader's, never the student's (graders.faults).

Why two threads' waits, not the sum of all: waits of several threads at the same moment would count that moment
several times (forty processes that spin a millisecond together every two seconds wait 0.8 s in all for 40 ms of CPU,
and a sleeping probe would read as "busy" on a quiet machine). One thread waits only while every CPU it may use runs
something else: on a quiet machine, the child's own threads, so its wait is at most the child's CPU time, under W,
two threads' at most 2 W, and a probe that never finishes is stopped by 3 W whatever its threads do. Two, because a
probe's work takes turns between two processes, the student's and the trusted one, each waiting for a CPU at its own
turns: credited only the longer wait, a probe taking turns on a CPU shared with three busy processes read three times
its CPU time as its own (benchmarks/limits.py: autodiff's timing probe timed out at a limit of twice its quiet time,
given 5 s more). A child that lowered its
own priority anywhere (a thread's nice value above the grader's, its session's autogroup nice, a scheduling policy
other than the normal one: SCHED_IDLE gets a fraction of a percent of a CPU beside normal work) chose to wait: it is
credited nothing at all.

The parent credits waiting only where it counts all of the child's CPU: its control group (the strong level), or
without one, at the unprivileged level, its process tree, every thread of every live process and what they reaped,
while no process of the tree ignores SIGCHLD (the sandbox's PID namespace keeps every process the child starts in
that tree). A child that ignores SIGCHLD has its children reaped by the kernel, their CPU charged to nobody the
process tree can show, and such uncounted spinners could keep a counted thread waiting on a quiet machine
(graders.probe). At the weak level there is no PID namespace: a double fork leaves the tree, and spinners there make
a quiet machine look busy (a red team turned a 110 s sleep under a 30 s limit into full marks that way). So a weak
limit never stretches: one passed after waiting for a CPU at least a quarter of it is not graded (the grader's fault,
said as the level's: regrade on a quiet machine or at a stronger level), a shorter wait leaves the timeout the code's.
Left open at the unprivileged level: a child that asks for uncounted children through sigaction's SA_NOCLDWAIT flag
(not shown in /proc; graders.integrity lists `ctypes` and process calls for review). At every level the two counted
waits may overlap (threads pinned to one CPU wait at the same moments), so a limit of W admits up to about 3 W of a
sleep on a quiet machine, never more than W of CPU.

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
#: the threads whose waits are credited: the longest-waiting ones (the student's process and the trusted one)
COUNTED_THREADS = 2


#: the scheduling policy of normal threads (SCHED_OTHER)
NORMAL_POLICY = 0


def _autogroup_nice(pid: str) -> int:
    """The nice value of `pid`'s session's autogroup (/proc/<pid>/autogroup: "/autogroup-N nice V"; 0 without one)."""
    try:
        with open(f"/proc/{pid}/autogroup") as handle:
            return int(handle.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return 0


def run_queue_waits(pids: Iterable[int], nice: Optional[int] = None) -> Dict[int, int]:
    """{thread id: nanoseconds it waited on a run queue, runnable, for a CPU} for every live thread of `pids`, from
    the kernel's schedstat (a thread that ended takes its count with it); nothing at all ({}) when one of them
    lowered its priority: a nice value, or its autogroup's, above `nice` (default: this process's, which the child
    inherits), or a scheduling policy other than the normal one."""
    most = os.getpriority(os.PRIO_PROCESS, 0) if nice is None else nice
    most_group = _autogroup_nice("self") if nice is None else nice
    waits: Dict[int, int] = {}
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        if _autogroup_nice(str(pid)) > most_group:
            return {}
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                if int(fields[16]) > most or int(fields[38]) != NORMAL_POLICY:  # nice, policy (proc(5): 19, 41)
                    return {}
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
        """Seconds the child waited for a CPU since the window started: the two longest waits of one of its threads
        each (the student's process and the trusted one take turns)."""
        grown = sorted((ns - self.waits_at_start.get(tid, 0) for tid, ns in waits.items()), reverse=True)
        return sum(max(0, ns) for ns in grown[:COUNTED_THREADS]) / 1e9

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
