"""Probe stage: run a problem's probes in a limited child process and collect plain data.

The parent trusts nothing the child prints. Results arrive as JSON lines on a
private pipe, tagged with a nonce the child received on stdin; the parent
validates every line (schema, nonce, only the requested probe ids, one result
each) and anything missing counts as failed, never passed. A probe that hangs
or kills its process fails alone: the child is restarted for the remaining
probes.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, cast

from . import cgroups, sandbox
from .limits import Limits
from .results import ChildRun, ProbeOutcome
from .waiting import MAX_STRETCH, Window, run_queue_waits

#: the child-side code (harness.py, probekit.py, compat/) in the repository
CHILD_DIR = Path(__file__).resolve().parent / "child"

#: Most bytes read from a problem's result channel, all restarts together; beyond it the child is killed.
CHANNEL_CAP = 64 * 1024 * 1024
#: Bytes of the child's stdout/stderr kept for the report.
TAIL = 4000


@dataclass(frozen=True)
class ChildConfig:
    """What the harness needs: import paths, the swap, the probes and where to work."""

    workdir: Path
    stack: Path
    #: the folder holding the problem's `probes.py` or `probes/` package
    probes_dir: Path
    probes: Sequence[str]
    seed: int
    inputs_dir: Optional[Path] = None
    #: None for a reference run; else student_file, module, symbols, inject, display_path
    swap: Optional[Dict[str, Any]] = None
    #: the child-side code (harness, probekit, compat); a world-readable copy in the cache when sandboxed
    child_dir: Path = CHILD_DIR
    #: child-side fault kinds to inject (tests only: graders.faults)
    inject: Sequence[str] = ()
    #: probe id -> the problem's judge of its evidence so far (probekit.checkpoint): True when the probe may stop
    #: there. Judged here, with what never enters the child (a student's runs only; `_checkpoint`)
    checkpoints: Mapping[str, Callable[[Any], bool]] = field(default_factory=dict)


#: processes the unprivileged sandbox's user namespace holds besides the child's own (bubblewrap's init)
USERNS_EXTRA_PROCESSES = 2
#: how often the parent's watchdog looks at the unprivileged sandbox's memory and scratch inodes (it has no
#: control group): a tree can go over the limit by what it allocates in this time before it is killed. When the
#: cheap count is over the limit it takes a finer one (`_resident_bytes`), and waits as long as that took before
#: the next look (the watchdog spends at most half a core)
WATCH_SECONDS = 0.01


def _limits(limits: Limits, strong: bool) -> List[str]:
    """`prlimit` arguments: CPU, address space, file size, open files, no core, no raised priority (and
    processes)."""
    mib = 1024 * 1024
    args = [
        "prlimit",
        f"--cpu={limits.cpu_seconds}",
        f"--as={limits.memory_mib * mib}",
        f"--fsize={limits.file_mib * mib}",
        f"--nofile={limits.open_files}",
        "--core=0",
        # no way back from a lowered priority: a thread that waited at nice 19 or SCHED_IDLE and came back to normal
        # before the parent looked would have its whole wait credited (graders.waiting)
        "--nice=0",
        "--rtprio=0",
    ]
    if strong:  # counted per uid: only meaningful for the unprivileged slot uid
        args.append(f"--nproc={limits.processes}")
    return args + ["--"]


def probe_sources(folder: Path) -> Dict[str, str]:
    """{"probes.py" or "probes/<name>.py": text}: the probes in `folder` (a problem's folder, or its copy that
    holds only the probes) as the child receives them."""
    found = {path.relative_to(folder).as_posix(): path for path in sorted(folder.rglob("*.py"))}
    return {rel: path.read_text(encoding="utf-8") for rel, path in found.items()
            if (rel == "probes.py" or rel.startswith("probes/")) and "__pycache__" not in rel}


def _seconds(value: float) -> str:
    """Seconds as a message says them: to a hundredth, without trailing zeros ("20", "1.5", "0.25"; a limit may be
    a fraction of a second)."""
    return f"{round(value, 2):g}"


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


class _Attempt:
    """One child process: launch, stream and validate its events."""

    def __init__(self, config: ChildConfig, probes: Sequence[str], limits: Limits, attempt: int,
                 budget: ChannelBudget, started: float, deadline: float, granted: float = 0.0):
        self.config = config
        self.probes = list(probes)
        self.limits = limits
        self.nonce = secrets.token_hex(16)
        self.results: Dict[str, ProbeOutcome] = {}
        self.current: Optional[str] = None
        self.current_started = 0.0
        self.marks: Optional[Dict[str, float]] = {}
        self.ack_fd: Optional[int] = None
        self.proc: Optional[subprocess.Popen] = None
        self.loaded: Optional[Dict[str, Any]] = None
        self.done = False
        self.tampered: List[str] = []
        self.reason = ""
        self.fault: Optional[str] = None
        #: the trusted process stopped the student's process for breaking the protocol (its words): the end that
        #: follows is that stop, not a kill from outside
        self.broken = ""
        self.policy: List[str] = []
        self.attempt = attempt
        self.budget = budget
        #: the problem's wall clock (from `started`, shared by every restart: `deadline` as earlier attempts left it)
        #: and the running probe's limit, each counting the child's own time: stretched while its processes wait for
        #: a CPU the machine gives to others (graders.waiting). What a probe's limit is stretched by is added to the
        #: problem's clock (`granted`, carried to the next attempt); what earlier attempts waited outside their
        #: probes is not credited again
        self.deadline = deadline
        self.granted = 0.0
        self.deadline_window = Window(started, limits.wall_seconds + granted, 0.0)
        self.probe_until = deadline
        self.probe_window = Window(0.0, limits.probe_seconds)
        #: a limit passed MAX_STRETCH times over while the child waited for a CPU: the machine's failure, not the code's
        self.busy: Optional[str] = None
        #: strong sandbox only: scratch mount points, control group, seccomp program descriptor
        self.scratch: Optional[Path] = None
        self.group: Optional[cgroups.ProcessGroup] = None
        self.seccomp_fd: Optional[int] = None
        #: the sandbox level this attempt runs at (sandbox.Capabilities.level)
        self.level = "weak"
        #: the child said it is about to execute graded code (from then on, anything it sends may be forged)
        self.student_started = False
        #: the parent stopped the child at a time limit (the problem's wall clock or the probe's)
        self.timed_out = False
        #: the child was SIGKILLed, not by the grader (a time limit) nor for its own group's memory limit
        self.killed_from_outside = False
        #: the most memory the tree used (its control group's peak), in bytes, and the processes the kernel
        #: killed for going over the group's limit; at the unprivileged level the watchdog's own figures: the
        #: most it saw (resident memory of the tree plus the scratch mounts' bytes), and 1 once it killed the
        #: sandbox for going over the limit
        self.peak_bytes: Optional[int] = None
        self.oom_kills = 0
        #: CPU seconds of the whole sandbox, read from its control group before it is removed (None without one)
        self.cpu_used: Optional[float] = None
        #: unprivileged level: when the watchdog looks next, a process inside the sandbox (its /proc/<pid>/root is
        #: the sandbox's view), the most inodes the scratch mounts held, and whether it killed the sandbox
        self.watched_at = 0.0
        self.inside_pid: Optional[int] = None
        self.peak_inodes = 0
        self.watchdog_killed = False

    def run(self) -> None:
        workdir = self.config.workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.level = sandbox.capabilities().level
        if self.level != "strong":
            sandbox.warn_if_weak()
        if self.level == "weak":
            self._launch(workdir, None)
            return
        with contextlib.ExitStack() as cleanup:
            uid = None
            if self.level == "strong" or sandbox.capabilities().userns_mounts:  # scratch tmpfs with an inode cap
                self.scratch = workdir / f"scratch.{self.attempt}"
            if self.level == "strong":
                uid = cleanup.enter_context(sandbox.UidSlot()).uid
                self.group = cgroups.create(self.limits.memory_mib, self.limits.processes)
                if self.group is not None:
                    cleanup.callback(self.group.remove)
                    cleanup.callback(self._read_accounting)  # before the group is removed (callbacks run last first)
            program = sandbox.seccomp_program()
            if program is not None:
                read_end, write_end = os.pipe()
                os.write(write_end, program)
                os.close(write_end)
                self.seccomp_fd = read_end
                cleanup.callback(os.close, read_end)
            self._launch(workdir, uid)

    def _read_accounting(self) -> None:
        if self.group is not None:
            self.peak_bytes, self.oom_kills = self.group.peak_bytes(), self.group.oom_kills()
            self.cpu_used = self.group.cpu_seconds()

    def _command_and_payload(self, workdir: Path, uid: Optional[int], write_fd: int):
        """The command line, the harness configuration and the environment (weak, unprivileged or strong)."""
        config = self.config
        # the probes' text travels on stdin and is compiled before graded code runs: no probe file in the sandbox
        payload: Dict[str, Any] = {"fd": write_fd, "nonce": self.nonce, "probes": self.probes, "seed": config.seed,
                                   "inject": list(config.inject), "probe_sources": probe_sources(config.probes_dir),
                                   "checkpoints": sorted(config.checkpoints)}
        if self.level == "weak":
            payload.update(
                paths=[str(config.stack), str(config.child_dir), str(config.child_dir / "compat")],
                workdir=str(workdir),
                inputs_dir=str(config.inputs_dir) if config.inputs_dir else None,
                swap=config.swap,
            )
            command = _limits(self.limits, False) + [sys.executable, *sandbox.PYTHON_FLAGS,
                                                     str(config.child_dir / "harness.py")]
            return command, payload, sandbox.child_environment(str(workdir))
        mapping = {"stack": config.stack, "child": config.child_dir}
        if config.inputs_dir:
            mapping["inputs"] = config.inputs_dir
        swap = dict(config.swap) if config.swap else None
        if swap:
            inside = f"student/{Path(swap['display_path']).name}"
            mapping[inside] = Path(swap["student_file"])
            swap["student_file"] = str(sandbox.INSIDE / inside)
        userns = None if self.level == "strong" else \
            sandbox.UserNamespace(self.limits.tmp_mib * 1024 * 1024, self.limits.processes + USERNS_EXTRA_PROCESSES,
                                  mounted=self.scratch is not None)
        argv, extra = sandbox.bwrap_command(mapping, uid, self.scratch, self.seccomp_fd, userns=userns)
        root = sandbox.INSIDE
        payload.update(
            paths=[str(root / "stack"), str(root / "child"), str(root / "child" / "compat")] + extra,
            workdir="/work",
            inputs_dir=str(root / "inputs") if config.inputs_dir else None,
            swap=swap,
        )
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        if userns is not None and self.scratch is None:  # bubblewrap's own scratch tmpfs: rlimits, then bubblewrap
            return _limits(self.limits, False) + argv, payload, env
        procs = self.group.procs_files if self.group else []
        if self.scratch is None:
            raise RuntimeError("the strong sandbox has no scratch folder")
        prefix = sandbox.confine_prefix(self.scratch, procs, self.limits.tmp_mib, self.limits.tmp_inodes,
                                        user_namespace=userns is not None)
        return prefix + _limits(self.limits, userns is None) + argv, payload, env

    def _launch(self, workdir: Path, uid: Optional[int]) -> None:
        read_fd, write_fd = os.pipe()
        ack_read, self.ack_fd = os.pipe()  # the parent acknowledges each timing mark on it
        os.set_blocking(self.ack_fd, False)
        command, payload, env = self._command_and_payload(workdir, uid, write_fd)
        payload["ack_fd"] = ack_read
        stdout = open(workdir / f"stdout.{self.attempt}.txt", "wb")
        stderr = open(workdir / f"stderr.{self.attempt}.txt", "wb")
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=stdout,
                stderr=stderr,
                cwd=workdir,
                env=env,
                pass_fds=(write_fd, ack_read) + ((self.seccomp_fd,) if self.seccomp_fd is not None else ()),
                start_new_session=True,
            )
        finally:
            os.close(write_fd)
            os.close(ack_read)
            stdout.close()
            stderr.close()
        self.proc = proc
        self.stderr_path = workdir / f"stderr.{self.attempt}.txt"
        try:
            try:
                stdin = cast(IO[bytes], proc.stdin)  # stdin=PIPE
                stdin.write(json.dumps(payload).encode())
                stdin.close()
            except BrokenPipeError:
                pass
            self._stream(proc, read_fd)
            self.killed_from_outside = _killed_by(proc, signal.SIGKILL) and not (
                self.timed_out or self.broken or self.watchdog_killed
                or (self.group is not None and self.group.oom_kills() > 0))
        finally:
            os.close(read_fd)
            os.close(self.ack_fd)
            self.ack_fd = None
            _kill_group(proc)
        if self.reason and not self.done:
            last = _last_line(_tail(self.stderr_path))
            if last:
                self.reason += f"; its last error output: {last}"

    def _stream(self, proc: subprocess.Popen, read_fd: int) -> None:
        buffer = bytearray()  # amortised appends: a flood without newlines costs linear time
        watch = self.level == "unprivileged"  # no control group: the parent watches the tree's memory itself
        while True:
            if watch and self._over_limits(proc):
                return
            now = time.monotonic()
            limit, probe = self.deadline, None
            if self.current is not None and self.probe_until < limit:
                limit, probe = self.probe_until, self.current
            if now >= limit and self._limit_passed(now, probe):
                return
            if now >= limit:
                continue
            ready, _, _ = select.select([read_fd], [], [], min(WATCH_SECONDS if watch else 0.5, limit - now))
            if not ready:
                if proc.poll() is not None and not _readable(read_fd):
                    self.reason = self.broken or _exit_reason(proc.returncode)
                    return
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                proc.wait()
                if not self.done:
                    self.reason = self.broken or _exit_reason(proc.returncode)
                return
            self.budget.bytes_left -= len(chunk)
            if self.budget.bytes_left < 0:
                self.reason = "the grading process wrote too much on its result channel"
                return
            buffer += chunk
            if b"\n" not in chunk:
                if len(buffer) > MAX_LINE_BYTES:
                    self.reason = "the grading process wrote a result line longer than the harness ever sends"
                    return
                continue  # a line still arriving: never rescan it
            *lines, rest = buffer.split(b"\n")
            buffer = bytearray(rest)
            for line in lines:
                try:
                    self._line(bytes(line))
                except Exception:  # student code can read the nonce: a hostile event is never a grader fault
                    self._tamper("a malformed event on the result channel")
            if self.done:
                return

    def _over_limits(self, proc: subprocess.Popen) -> bool:
        """The unprivileged level's watchdog (every WATCH_SECONDS): the resident memory of the child's whole
        process tree plus the bytes its scratch mounts hold, against the problem's memory limit, and the
        scratch mounts' inodes against their cap. Over either, the whole sandbox is killed (its PID
        namespace goes with bubblewrap) and the reason is the student's, like the strong level's OOM kill."""
        now = time.monotonic()
        if now < self.watched_at:
            return False
        self.watched_at = now + WATCH_SECONDS
        pids = _tree(proc.pid)
        if self.inside_pid is None or self.inside_pid not in pids:
            self.inside_pid = next((pid for pid in pids if _in_sandbox(pid)), None)
        used, inodes = _scratch_usage(self.inside_pid) if self.inside_pid is not None else (0, 0)
        mib = self.limits.memory_mib
        total = _resident_bytes(pids) + used
        if total > mib * 1024 * 1024:  # pages forked children share count once each: a finer count, sparingly
            total = _resident_bytes(pids, proportional=True) + used
            self.watched_at = max(self.watched_at, 2 * time.monotonic() - now)
        self.peak_bytes = max(self.peak_bytes or 0, total)
        self.peak_inodes = max(self.peak_inodes, inodes)
        if total > mib * 1024 * 1024:
            self.reason = (f"the grading process and its child processes used more than the problem's memory limit "
                           f"({mib} MiB) together: stopped")
        elif inodes > self.limits.tmp_inodes:
            self.reason = (f"the grading process made more files and folders in /tmp and /work than the sandbox "
                           f"allows ({self.limits.tmp_inodes}): stopped")
        else:
            return False
        self.watchdog_killed = True
        self.oom_kills += 1
        _kill_group(proc)
        return True

    def _tamper(self, note: str) -> None:
        """Keep a note of tampering: each distinct note once, at most MAX_NOTES of them."""
        if note not in self.tampered and len(self.tampered) < MAX_NOTES:
            self.tampered.append(note)

    def _line(self, line: bytes) -> None:
        """Bound a line before parsing it: its size, and its JSON elements (at most one per `[`, `{`
        or `,`: counted in C, no Python object made) against this line's and the whole run's budget."""
        if len(line) > MAX_LINE_BYTES:
            self._tamper("a result line longer than the harness ever sends")
            return
        elements = line.count(b"[") + line.count(b"{") + line.count(b",")
        if elements > MAX_LINE_ELEMENTS or elements > self.budget.elements_left:
            self._tamper("a result with more values than the harness ever sends")
            return
        self.budget.elements_left -= elements
        self._event(line)

    def _event(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            self._tamper("unparsable line on the result channel")
            return
        if not isinstance(event, dict) or event.get("nonce") != self.nonce:
            self._tamper("a line without the run's nonce on the result channel")
            return
        kind = event.get("event")
        if kind == "student":
            if self.student_started or self.loaded is not None:
                self._tamper("a second 'student' event")
            self.student_started = True
        elif kind == "loaded":
            missing, error = event.get("missing"), event.get("error")
            if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing) or not (
                error is None or isinstance(error, dict)
            ):
                self._tamper("a malformed 'loaded' event")
                return
            self.loaded = event
        elif kind == "start":
            probe = event.get("probe")
            if probe not in self.probes or probe in self.results:
                self._tamper(f"unexpected start of probe {_short(probe)}")
                return
            self.current, self.current_started = probe, time.monotonic()
            self.marks = {}
            self.probe_window = Window(self.current_started, self.limits.probe_seconds, *self._counted())
            self.probe_until = self.current_started + self.limits.probe_seconds
        elif kind == "mark":
            self._mark(event)
        elif kind == "checkpoint":
            self._checkpoint(event)
        elif kind == "result":
            self._result(event)
        elif kind == "fault":
            error = event.get("error")
            err = error if isinstance(error, dict) else {}
            self.fault = f"harness fault: {str(err.get('type'))[:200]}: {str(err.get('message'))[:2000]}"
            self.reason = self.fault
        elif kind == "broken":
            self.broken = str(event.get("message"))[:500]
        elif kind == "note":  # the trusted side of the harness noting what the student's process sent
            self._tamper(str(event.get("note"))[:200])
        elif kind == "policy":
            module = event.get("module")
            if isinstance(module, str) and module not in self.policy:
                self.policy.append(module[:100])
        elif kind == "done":
            self.done = True
        else:
            self._tamper(f"unknown event {_short(kind)}")

    def _limit_passed(self, now: float, probe: Optional[str]) -> bool:
        """At the running probe's limit (`probe`) or the problem's wall clock (None): whether the child is stopped
        (`reason` says why: its own time used up, or `busy`, the machine's) or, when the child's own time is still
        under the limit, the limit is stretched (graders.waiting)."""
        window = self.probe_window if probe is not None else self.deadline_window
        cpu, waits = self._counted()
        verdict = window.verdict(now, cpu, waits)
        which = f"probe '{probe}'" if probe is not None else "the grading process"
        if verdict == "stretch" and self.level == "weak":
            if window.waited(waits) < UNCONTAINED_WAIT * window.limit:
                verdict = "over"
            else:  # no PID namespace: processes of the submission's own may have left the tree and held the CPU
                waited = min(window.waited(waits), now - window.started)  # two threads' waits may overlap
                self.busy = (f"{which} reached its {_seconds(window.limit)} s limit having waited "
                             f"{_seconds(waited)} s of it for a CPU other work held; at the weak "
                             "sandbox level the grader cannot tell the machine's load from processes the submission "
                             "started, so it does not stretch the limit: regrade on a quiet machine or at a stronger "
                             "sandbox level")
                self.reason, self.timed_out = self.busy, True
                return True
        if verdict == "stretch":
            if probe is not None:
                step = window.until(now) - self.probe_until
                self.probe_until += step
                self.granted += step
                self.deadline += step
                self.deadline_window.limit += step
            else:
                self.deadline = window.until(now)
            return False
        if verdict == "busy":
            self.busy = (f"{which} did not finish in {MAX_STRETCH:g} times its {_seconds(window.limit)} s limit, "
                         f"{_seconds(window.waited(waits))} s of it waiting for a CPU the machine gave to other work: "
                         "the machine is too busy to grade it fairly")
            self.reason = self.busy
        else:
            self.reason = f"{which} timed out after {_seconds(window.limit)} s (infinite loop or sleep?)"
            if window.stretched(now) >= 1:
                self.reason += f"; given {_seconds(window.stretched(now))} s more while it waited for a CPU"
        self.timed_out = True
        return True

    def _cpu_now(self) -> Optional[float]:
        """CPU seconds of the child's whole tree as the KERNEL reports them: its control group, or without one the
        live tree and what it reaped."""
        now = self.group.cpu_seconds() if self.group is not None else None
        if now is None and self.proc is not None:
            now = _tree_cpu_seconds(self.proc.pid)
        return now

    def _counted(self) -> Tuple[Optional[float], Dict[int, int]]:
        """The child's CPU time and its threads' run-queue waits (graders.waiting), where all of its CPU is counted:
        its control group (cgroup v2, or v1 with cpuacct), or without one its live process tree and what that tree
        reaped, while no process of the tree ignores SIGCHLD; else (None, {}). A child whose children the kernel
        reaps itself (SIGCHLD ignored) has CPU the process tree cannot show, which could keep a counted thread waiting
        on a quiet machine: nothing is credited, and the limits count wall time as they always did. At the weak
        level (no PID namespace: a process can leave the tree) the waits never stretch a limit (`_limit_passed`)."""
        if self.group is not None:
            cpu = self.group.cpu_seconds()
            return (cpu, run_queue_waits(self.group.pids())) if cpu is not None else (None, {})
        if self.proc is None:
            return None, {}
        pids = _tree(self.proc.pid)
        cpu = _tree_cpu_seconds(self.proc.pid)
        if cpu is None or any(_ignores_children(pid) for pid in pids):
            return None, {}
        return cpu, run_queue_waits(pids)

    def _mark(self, event: Dict[str, Any]) -> None:
        """Stamp a timing mark with the child's CPU clock as the KERNEL reports it (the child cannot
        fake it, and load on the machine barely changes it), then let the child go on."""
        now = self._cpu_now()
        label = event.get("label")
        if self.current is None or event.get("probe") != self.current or not isinstance(label, str) \
                or len(label) > 64:  # (a mark naming no probe while none runs would land in the last one's marks)
            self._tamper("a malformed timing mark")
        elif self.marks is not None:
            if label in self.marks or len(self.marks) >= MAX_MARKS or now is None:
                self.marks = None  # a label sent twice (somebody else sends marks), or no CPU clock
            else:
                self.marks[label] = now
        if self.ack_fd is not None:
            try:
                os.write(self.ack_fd, b"\n")
            except OSError:
                pass

    def _checkpoint(self, event: Dict[str, Any]) -> None:
        """A running probe's evidence so far (probekit.checkpoint): the problem's judge of it says whether the probe
        may stop there, one byte on the acknowledgement pipe (b"s" stop, b"c" go on). The child learns one bit per
        ask, at most MAX_CHECKPOINTS times per probe over all attempts. A probe with no judge, an ask past that
        number, or a judge that fails: go on (the probe runs to its end, as it would with no checkpoint)."""
        probe = event.get("probe")
        judge = self.config.checkpoints.get(probe) if isinstance(probe, str) else None
        stop = False
        if self.current is None or probe != self.current:
            self._tamper("a checkpoint of a probe that is not running")
        elif judge is not None and self.budget.checkpoints.get(probe, 0) < MAX_CHECKPOINTS:
            self.budget.checkpoints[probe] = self.budget.checkpoints.get(probe, 0) + 1
            try:
                stop = judge(event.get("evidence")) is True
            except Exception:  # the grader's own judge failed: the probe runs to its end, its verdict as ever
                stop = False
        if self.ack_fd is not None:
            try:
                os.write(self.ack_fd, b"s" if stop else b"c")
            except OSError:
                pass

    def _result(self, event: Dict[str, Any]) -> None:
        probe = event.get("probe")
        if self.current is None or probe != self.current:  # (a result naming no probe while none runs, too)
            self._tamper(f"result for probe {_short(probe)} that is not running")
            return
        status = event.get("status")
        seconds = float(event.get("seconds") or 0.0) if isinstance(event.get("seconds"), (int, float)) else 0.0
        if status == "ok" and _nesting(event.get("value")) > MAX_NESTING:
            self._tamper(f"a result for probe {_short(probe)} nested deeper than the harness ever sends")
            return
        if status == "ok":
            outcome = ProbeOutcome(probe, "ok", value=event.get("value"), seconds=seconds, marks=self.marks)
        elif status == "error" and isinstance(event.get("error"), dict):
            err = event["error"]
            line = err.get("line") if isinstance(err.get("line"), int) else None
            outcome = ProbeOutcome(
                probe, "error", error_type=str(err.get("type", "Error"))[:200],
                error_message=str(err.get("message", ""))[:2000], line=line, seconds=seconds,
            )
        else:
            self._tamper(f"malformed result for probe {_short(probe)}")
            return
        self.results[probe] = outcome
        self.current = None


def _children(pid: int, scan: bool = False) -> List[int]:
    """Child pids of `pid`: /proc/<pid>/task/*/children (fast, but the kernel calls it unreliable
    while the tree changes), or with `scan` a full pass over /proc's parent pids."""
    found: List[int] = []
    if not scan:
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    found.extend(int(c) for c in handle.read().split())
            return found
        except FileNotFoundError:
            pass
        except (OSError, ValueError):
            return found
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _tree(root: int) -> List[int]:
    """`root` and every live process under it (`root` first)."""
    found, seen, todo = [], set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            found.append(pid)
            todo.extend(_children(pid))
    return found


PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


#: with `proportional`, processes holding less than this are counted by their proportional share
PROPORTIONAL_BELOW = 256 * 1024 * 1024


def _resident_bytes(pids: Sequence[int], proportional: bool = False) -> int:
    """Resident memory of `pids` together, an upper bound: cheaply, /proc/<pid>/statm (a page several
    processes share, as forked children share their parent's, counts once for each: 64 forked Pythons of
    40 MiB count 2.5 GiB), or with `proportional` the small processes (under PROPORTIONAL_BELOW) by their
    share (/proc/<pid>/smaps_rollup's Pss: a shared page split between its users; reading it walks the
    process's page tables, so the large ones, whose pages are mostly their own, keep their resident size)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as handle:
                resident = int(handle.read().split()[1]) * PAGE_BYTES
        except (OSError, ValueError, IndexError):
            continue
        if proportional and resident < PROPORTIONAL_BELOW:
            try:
                with open(f"/proc/{pid}/smaps_rollup") as handle:
                    resident = next(int(line.split()[1]) for line in handle if line.startswith("Pss:")) * 1024
            except (OSError, ValueError, IndexError, StopIteration):
                pass  # gone, or no smaps_rollup (before Linux 4.14): its resident size
        total += resident
    return total


def _in_sandbox(pid: int) -> bool:
    """Whether `pid` runs inside the sandbox's view: another PID namespace than the grader (bubblewrap's init
    and what it runs) and a root on another filesystem (bubblewrap's init starts in the host's root and
    switches to the view's only once it is built)."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid") != os.readlink("/proc/self/ns/pid") and \
            os.stat(f"/proc/{pid}/root/").st_dev != os.stat("/").st_dev
    except OSError:
        return False


def _scratch_usage(pid: int) -> Tuple[int, int]:
    """(bytes the sandbox's /work and /tmp hold together, inodes the fuller of the two holds), seen through
    `pid`'s root (a process inside)."""
    used = inodes = 0
    for mount in ("work", "tmp"):
        try:
            stat = os.statvfs(f"/proc/{pid}/root/{mount}")
        except OSError:
            continue
        used += (stat.f_blocks - stat.f_bfree) * stat.f_frsize
        inodes = max(inodes, stat.f_files - stat.f_ffree)
    return used, inodes


def _process_clock(pid: int) -> int:
    """The clock id of `pid`'s process CPU clock (glibc's clock_getcpuclockid: CPUCLOCK_SCHED of the
    whole thread group): every thread, live or ended, in nanoseconds."""
    return ((~pid) << 3) | 2


def _reaped_seconds(pid: int) -> float:
    """CPU time of `pid`'s children that ended and were waited for (/proc/<pid>/stat cutime + cstime)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


#: at the weak level, a limit passed after waiting for a CPU at least this share of it is not graded (the machine's
#: load or the submission's own processes outside the tree, which the grader cannot tell apart); less is the code's
UNCONTAINED_WAIT = 0.25

#: SIGCHLD's bit in /proc/<pid>/status's signal masks (signal 17, bit 16)
SIGCHLD_BIT = 1 << (signal.SIGCHLD - 1)


def _ignores_children(pid: int) -> bool:
    """Whether `pid` ignores SIGCHLD (/proc/<pid>/status SigIgn), so that the kernel reaps its children itself and
    their CPU is charged to no process the tree shows; a process that ended meanwhile ignores nothing."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) & SIGCHLD_BIT)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _tree_cpu_seconds(root: int) -> Optional[float]:
    """CPU time the kernel has charged to the whole process tree under `root`: every thread of every
    live process plus the children they reaped. Work moved to a thread or a forked process is still
    counted; None when `root` is gone."""
    total = 0.0
    for pid in _tree(root):
        try:
            total += time.clock_gettime(_process_clock(pid)) + _reaped_seconds(pid)
        except (OSError, ValueError, IndexError):
            if pid == root:
                return None
    return total


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


#: deepest nesting of a result value the harness can send (its `_plain` stops at 50)
MAX_NESTING = 60
#: longest result line (the reference's longest is about 80 kB)
MAX_LINE_BYTES = 4 * 1024 * 1024
#: most JSON values in one line (the reference's most: about 4,000)
MAX_LINE_ELEMENTS = 200_000


@dataclass
class ChannelBudget:
    """What all attempts of one problem's child may send together: restarting (a child that kills
    itself) never buys a fresh allowance."""

    bytes_left: int = CHANNEL_CAP
    #: JSON values kept for judging (the reference sends about 40,000 for a whole problem)
    elements_left: int = 2_000_000
    #: checkpoints judged per probe (`_Attempt._checkpoint`)
    checkpoints: Dict[str, int] = field(default_factory=dict)


#: most distinct tampering notes kept per attempt
MAX_NOTES = 20


def _short(value: Any) -> str:
    """A child-controlled value in a note: its repr, cut to 80 characters (a forged 1 M-character probe
    id must not cost the parent 10 MB per line)."""
    text = repr(value[:81] if isinstance(value, str)
                else value if not isinstance(value, (list, dict)) else type(value).__name__)
    return text if len(text) <= 80 else text[:77] + "..."


#: most timing marks one probe may send
MAX_MARKS = 256
#: most checkpoints of one probe the parent judges (each tells the child one bit of what it judges with: the
#: training probe asks once per epoch, at most 15)
MAX_CHECKPOINTS = 16


def _nesting(value: Any) -> int:
    """How deeply lists/dicts nest in `value` (iterative: a hostile value cannot exhaust the stack)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING and isinstance(item, (list, dict)):
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _readable(fd: int) -> bool:
    ready, _, _ = select.select([fd], [], [], 0)
    return bool(ready)


def _exit_reason(code: Optional[int]) -> str:
    if code is None:
        return "the grading process did not finish"
    if 128 < code <= 128 + 64:  # bubblewrap reports a child killed by signal N as exit code 128 + N
        code = 128 - code
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        hints = {"SIGKILL": " (memory or CPU limit?)", "SIGXCPU": " (CPU time limit)", "SIGSEGV": " (crash)"}
        hint = hints.get(name, "")
        return f"the grading process was killed by {name}{hint}"
    return f"the grading process exited early with code {code} (sys.exit / os._exit in your code?)"


def _killed_by(proc: subprocess.Popen, which: signal.Signals) -> bool:
    """Whether the child has ended, killed by signal `which` (bubblewrap reports it as 128 + N)."""
    code = proc.poll()
    return code is not None and code in (-int(which), 128 + int(which))


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_child(config: ChildConfig, limits: Limits) -> ChildRun:
    """Run every probe of `config`, restarting the child after a probe kills it."""
    started = time.monotonic()
    outcomes: Dict[str, ProbeOutcome] = {}
    notes: List[str] = []
    remaining = list(config.probes)
    run = ChildRun(outcomes={})
    attempt = 0
    budget, deadline, granted = ChannelBudget(), started + limits.wall_seconds, 0.0
    #: graded code ran in an earlier attempt: what it did (the channel budget, the wall clock) outlives its process
    student_ran = False
    while remaining:
        current = _Attempt(config, remaining, limits, attempt, budget, started, deadline, granted)
        current.run()
        deadline, granted = current.deadline, granted + current.granted  # as this attempt stretched them
        before_student = not current.student_started and not student_ran
        student_ran = student_ran or current.student_started
        if current.loaded is not None:
            run.missing_symbols = list(current.loaded.get("missing") or [])
            if current.loaded.get("error"):
                run.load_error = current.loaded["error"]
        for note in dict.fromkeys(current.tampered):
            notes.append(f"ignored: {note}")
        outcomes.update(current.results)
        run.policy.extend(m for m in current.policy if m not in run.policy)
        if current.peak_bytes is not None:
            run.peak_mib = max(run.peak_mib or 0.0, current.peak_bytes / (1024 * 1024))
        run.oom_kills += current.oom_kills
        if current.cpu_used is not None:
            run.cpu_seconds = (run.cpu_seconds or 0.0) + current.cpu_used
        if current.killed_from_outside:
            run.outside_kills.append(current.current or ("import" if current.loaded is None else "between probes"))
        if current.busy:  # the machine's failure: the grader's fault, retried by the grading (graders.grade)
            run.machine.append(current.busy)
            notes.append(current.busy)
            for probe in remaining:
                outcomes.setdefault(probe, ProbeOutcome(probe, "missing", error_message=current.busy))
            break
        if run.load_error is not None:
            break
        if current.fault is not None:
            run.fault = current.fault
            run.fault_before_student = before_student
            notes.append(current.fault)
            for probe in remaining:
                outcomes.setdefault(probe, ProbeOutcome(probe, "missing", error_message=current.fault))
            break
        if current.done and not current.reason:
            break
        if current.loaded is None:
            # died before the student's module was even imported and swapped
            reason = current.reason or "the grading process ended while importing your file"
            if before_student and not current.timed_out and config.swap is not None:
                # it ended before any graded code ran, and not at a time limit the student's code used up
                reason = f"the grading process ended before the student's code ran: {reason}"
                run.machine.append(reason)
            notes.append(reason)
            for probe in remaining:
                outcomes.setdefault(probe, ProbeOutcome(probe, "missing", error_message=reason))
            break
        culprit = current.current
        if culprit is not None:
            outcomes[culprit] = ProbeOutcome(culprit, "missing", error_message=current.reason)
            notes.append(f"{current.reason} (probe {culprit})")
        elif current.reason:
            notes.append(current.reason)
        remaining = [p for p in remaining if p not in outcomes]
        attempt += 1
        if attempt > limits.max_restarts or time.monotonic() > deadline:
            for probe in remaining:
                outcomes[probe] = ProbeOutcome(probe, "missing",
                                               error_message="not run: too many crashes or time limit")
            break
    for probe in config.probes:
        outcomes.setdefault(probe, ProbeOutcome(probe, "missing", error_message="no result"))
    run.outcomes = outcomes
    run.notes = notes
    run.seconds = time.monotonic() - started
    return run
