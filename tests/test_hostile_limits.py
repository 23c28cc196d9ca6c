"""Hardening round 2 (issue 10): clocks, the parent's parsing and the sandbox's limits hold for the whole
child, not for one thread or one process of it.

* work moved to a worker thread is still timed (the parent reads every thread's CPU clock);
* forged result lines with the run's own nonce cost the parent bounded memory and time, across restarts;
* the kernel keyring is closed to graded code (no cross-talk between students graded at once);
* memory and inodes are bounded for the whole sandbox (a control group, a tmpfs with an inode cap).

Attacks that need the strong sandbox skip without it (in the weak one the child shares the grader's
/tmp and memory, and nothing here can bound it).
"""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Dict, Optional

import numpy as np
import pytest

import hostile_kit as k
from graders import cgroups, probe, sandbox

AD, OPS = k.FILES["autodiff"], k.FILES["ops"]
STRONG = k.strong()
needs_strong = pytest.mark.skipif(not STRONG, reason="needs the strong sandbox (root + bubblewrap)")
MIB = 1024 * 1024


# ------------------------------------------------- hole 1: CPU time of every thread


def test_the_tree_clock_counts_every_thread_and_reaped_child():
    """Two busy threads and a forked, reaped child: the process tree's CPU time counts all three."""
    code = textwrap.dedent("""
        import os, sys, threading, time
        def spin(seconds):
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                pass
        workers = [threading.Thread(target=spin, args=(0.4,)) for _ in range(2)]
        [w.start() for w in workers]; [w.join() for w in workers]
        pid = os.fork()
        if pid == 0:
            spin(0.4); os._exit(0)
        os.waitpid(pid, 0)
        sys.stdout.write("done\\n"); sys.stdout.flush()
        time.sleep(30)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"done\n"
        seconds = probe._tree_cpu_seconds(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert seconds is not None and seconds >= 1.15, seconds  # 3 x 0.4 s; the main thread alone had ~0.05 s


AUTOREAP = textwrap.dedent("""
    import os, signal, sys, time
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the child: its time never reaches cutime
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        end = time.process_time() + 0.6
        while time.process_time() < end:
            pass
        os.write(write_end, b"x"); os._exit(0)
    os.read(read_end, 1)
    time.sleep(0.3)
    sys.stdout.write("done\\n"); sys.stdout.flush()
    time.sleep(30)
""")


@needs_strong
def test_cpu_of_a_child_the_kernel_reaps_itself_is_counted():
    """Our red team's 40/40: with SIGCHLD ignored, a forked child's work vanished from the process tree's
    clocks. The control group's CPU account counts every task that was ever in the group (the graded
    version of this attack sits in the same narrow timing window as the thread one; this is the clock)."""
    group = cgroups.create(256, 16)
    assert group is not None
    try:
        proc = subprocess.Popen(["/bin/sh", "-c", 'for f in "$@"; do echo $$ > "$f"; done; exec ' + sys.executable
                                 + ' -c "$CODE"', "sh", *map(str, group.procs_files)],
                                stdout=subprocess.PIPE, env={"CODE": AUTOREAP, "PATH": "/usr/bin:/bin"})
        try:
            assert proc.stdout.readline() == b"done\n"
            tree, account = probe._tree_cpu_seconds(proc.pid), group.cpu_seconds()
        finally:
            proc.kill()
            proc.wait()
    finally:
        group.remove()
    assert tree is not None and tree < 0.4, tree  # the tree's clocks lost the child's 0.6 s
    if account is None:
        pytest.skip("this host's control groups keep no CPU account (no cpuacct hierarchy)")
    assert account >= 0.55, account


# ------------------------------------------------- hole 4: forged lines, restarts


GRADE_AND_MEASURE = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[2])
    import hostile_kit as k
    started = time.monotonic()
    result = k.grade(__import__("pathlib").Path(sys.argv[1]), ["ops"])
    p = k.problem(result, "ops")
    # VmHWM is this process's own peak (ru_maxrss would keep the peak of the process that exec'd us)
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    print(json.dumps({"seconds": time.monotonic() - started, "rss_mib": int(hwm.split()[1]) / 1024,
                      "score": p.score, "text": k.text_of(p)[:3000]}))
""")


def _grade_in_own_process(path: Path) -> dict:
    """Grade `path`'s ops problem in a fresh grader process; its wall time and peak RSS."""
    out = subprocess.run([sys.executable, "-c", GRADE_AND_MEASURE, str(path), str(Path(__file__).parent)],
                         capture_output=True, text=True, timeout=600, cwd=k.ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mib", [15, 3])
def test_forged_lines_with_the_nonce_cost_the_grader_bounded_memory_and_time(tmp_path, mib):
    """Lines of `[],` with the run's nonce (15 MiB: over the line cap; 3 MiB: under it, over the value cap),
    then SIGKILL, restart after restart: the red team saw 2.7 GB RSS and 2-3.5 minutes for a problem
    whose wall limit is 90 s."""
    from graders.spec import load_problems
    from graders.template import strip_file

    stub = strip_file(k.REFERENCE / OPS, OPS, load_problems(), only=["ops"])  # blank for ops
    attacked = k.build(tmp_path / "forged", {OPS: k.compose(stub, OPS, "limits_forged_lines", "call", mib=mib)})
    measured = _grade_in_own_process(attacked)
    print(f"forged lines of {mib} MiB: grader peak RSS {measured['rss_mib']:.0f} MiB, ops graded in {measured['seconds']:.1f} s")
    wall = 90  # problems/ops/problem.toml
    assert measured["rss_mib"] <= 400, measured  # the bound is 1 GiB; the grader alone needs ~50 MiB
    assert measured["seconds"] <= wall + 30, measured
    assert measured["score"] == 0, measured


def test_element_and_line_caps_reject_before_parsing():
    """A line over the size cap, or with more JSON values than the caps allow, is refused unparsed; the
    run's element budget is shared by every attempt (a restart buys nothing)."""
    budget = probe.ChannelBudget(elements_left=200_000)
    attempt = probe._Attempt(probe.ChildConfig(Path("."), Path("."), Path("."), ["p"], 0), ["p"], probe.Limits(),
                             0, budget, time.monotonic(), time.monotonic() + 60)
    parsed = []
    attempt._event = parsed.append
    attempt._line(b"x" * (probe.MAX_LINE_BYTES + 1))
    attempt._line(b"[" + b"[]," * probe.MAX_LINE_ELEMENTS + b"[]]")
    assert parsed == [] and len(attempt.tampered) == 2
    line = b"[" + b"[]," * 60_000 + b"[]]"  # counted as 120,002 values (an upper bound)
    attempt._line(line)
    again = probe._Attempt(attempt.config, ["p"], probe.Limits(), 1, budget, time.monotonic(), time.monotonic() + 60)
    again._event = parsed.append
    again._line(line)
    assert parsed == [line] and budget.elements_left == 200_000 - 120_002 and len(again.tampered) == 1


# ------------------------------------------------- holes 6, 8, 9: the strong sandbox as a whole


def _run_boxed(code: str, memory_mib: int = 512, processes: int = 64, tmp_inodes: int = 4096,
               accounting: Optional[Dict[str, float]] = None) -> subprocess.CompletedProcess:
    """`python -c code` in the strong sandbox as the grader confines a child (slot uid, control group,
    scratch tmpfs, seccomp filter). `accounting` gets the control group's own figures: `peak_mib` (the most
    memory the whole tree used at once) and `oom_kills` (its processes killed for going over the limit)."""
    with sandbox.UidSlot() as slot, tempfile.TemporaryDirectory() as scratch:
        program = sandbox.seccomp_program()
        read_end = None
        pass_fds = ()
        if program is not None:
            import os

            read_end, write_end = os.pipe()
            os.write(write_end, program)
            os.close(write_end)
            pass_fds = (read_end,)
        group = cgroups.create(memory_mib, processes)
        try:
            argv, _ = sandbox.bwrap_command({}, slot.uid, Path(scratch), read_end, ["-c", code])
            prefix = sandbox.confine_prefix(Path(scratch), group.procs_files if group else [], 16, tmp_inodes)
            out = subprocess.run(prefix + argv, capture_output=True, text=True, timeout=120, pass_fds=pass_fds)
            if accounting is not None and group is not None:
                accounting.update(peak_mib=(group.peak_bytes() or 0) / MIB, oom_kills=group.oom_kills())
            return out
        finally:
            if group is not None:
                group.remove()
            if read_end is not None:
                import os

                os.close(read_end)


KEYRING = textwrap.dedent("""
    import ctypes, ctypes.util, errno
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    SYS = {"x86_64": (248, 250), "aarch64": (217, 219)}[__import__("os").uname().machine]
    key = libc.syscall(SYS[0], b"user", b"@@NAME@@", b"hello", 5, -4)   # add_key(..., KEY_SPEC_USER_KEYRING)
    add_errno = ctypes.get_errno()
    ctl = libc.syscall(SYS[1], 0, -4, 0)                                  # keyctl(KEYCTL_GET_KEYRING_ID, user)
    print(key, add_errno, ctl, ctypes.get_errno())
""")


@needs_strong
def test_graded_code_cannot_use_the_kernel_keyring():
    """Keys outlive the sandbox and are readable across slot uids once granted: add_key and keyctl fail."""
    out = _run_boxed(KEYRING.replace("@@NAME@@", k.token()))
    assert out.returncode == 0, out.stderr[-2000:]
    key, add_errno, ctl, ctl_errno = map(int, out.stdout.split())
    assert (key, add_errno) == (-1, errno.EPERM) and (ctl, ctl_errno) == (-1, errno.EPERM), out.stdout


def test_the_seccomp_program_is_well_formed():
    """Classic BPF: 8-byte instructions; every jump lands inside the program; the last two are returns."""
    import struct

    for machine in sandbox.SYSCALLS:
        code = sandbox.seccomp_program(machine)
        rows = [struct.unpack("<HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
        for index, (op, jt, jf, _) in enumerate(rows):
            if op in (0x15, 0x35, 0x45):
                assert index + 1 + max(jt, jf) < len(rows)
        assert rows[-1][:1] == (0x06,) and rows[-1][3] == 0x00050001  # the last instruction: EPERM
    assert sandbox.seccomp_program("sparc") is None


@needs_strong
def test_the_sandbox_tmpfs_has_an_inode_cap():
    out = _run_boxed("import os\nfor i in range(100000):\n    open(f'/tmp/{i}', 'w').close()\n", tmp_inodes=500)
    assert "No space left on device" in out.stderr, out.stderr[-2000:]


@needs_strong
def test_memory_is_bounded_for_the_whole_sandbox():
    """Four forked children of 300 MiB each, each far under the 512 MiB limit: together they are not. Measured
    by the sandbox's own control group (what the grader controls), not the host's free memory: the children's
    memory is counted there (at least one child's block), the tree never held more than the limit, and the
    kernel killed children for it."""
    code = textwrap.dedent("""
        import os, time
        kids = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                block = bytearray(300 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(1.5)  # holding the block while the others touch theirs (all four start at once)
                os._exit(0)
            kids.append(pid)
        codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in kids]
        print(codes)
    """)
    group: Dict[str, float] = {}
    out = _run_boxed(code, memory_mib=512, accounting=group)
    assert "-9" in out.stdout or out.returncode != 0, (out.stdout, out.stderr[-2000:])  # somebody was OOM-killed
    assert 300 <= group["peak_mib"] <= 512 + 1, group
    assert group["oom_kills"] >= 1, group


@needs_strong
def test_fan_out_attack_costs_the_host_at_most_the_problems_memory(tmp_path):
    """Five forked children of 1200 MiB each pass a 1536 MiB per-process limit: the red team's host lost
    6 GB. Now the whole sandbox holds the problem's memory limit, as its control group counts it (the grader's
    own accounting, whatever else the machine runs): the children were in it (one child's 1200 MiB at least),
    it never held more than the limit, and the kernel killed children for it."""
    tok = k.token()
    attacked = k.build(tmp_path / "fan", {OPS: k.compose(k.source("reference", OPS), OPS, "limits_fan_out", "call",
                                                          mib=1200, token=tok)})
    ops = k.problem(k.grade(attacked, ["ops"], {"probe_seconds": 30, "wall_seconds": 60}), "ops")
    print(f"fan-out: the sandbox held at most {ops.peak_mib} MiB; {ops.oom_kills} processes killed for it")
    assert ops.peak_mib is not None and 1200 <= ops.peak_mib <= 1536 + 1, ops.peak_mib
    assert ops.oom_kills >= 1 and ops.fault is None
    assert k.wait_gone(tok) == []


@needs_strong
def test_inode_flood_costs_the_host_bounded_kernel_memory(tmp_path):
    """Two million empty files in the private /tmp: the red team's host grew 2.5 GB of slab. The tmpfs's inode
    cap stops the flood; its kernel memory is charged to the sandbox's control group (300,000 files there:
    278 MiB), so the group's own peak shows it stayed small."""
    attacked = k.build(tmp_path / "inodes", {OPS: k.compose(k.source("reference", OPS), OPS, "limits_inode_flood", "call")})
    result = k.grade(attacked, ["ops"], {"probe_seconds": 30, "wall_seconds": 60})
    ops = k.problem(result, "ops")
    print(f"inode flood: the sandbox held at most {ops.peak_mib} MiB")
    assert ops.peak_mib is not None and ops.peak_mib <= 512, ops.peak_mib
    k.assert_normal(result, "ops")  # the flood stopped at the cap; the correct code is graded as it is


@needs_strong
def test_stale_empty_groups_are_swept_and_fresh_ones_kept():
    """A grader killed before its cleanup leaves an empty control group; the next one removes it, but
    never a group created moments ago (empty until its child joins)."""
    import os

    stale, fresh = cgroups.create(64, 8), cgroups.create(64, 8)
    assert stale is not None and fresh is not None
    try:
        for directory in stale.dirs:
            os.utime(directory, (time.time() - 2 * cgroups.STALE_SECONDS,) * 2)
        later = cgroups.create(64, 8)
        later.remove()
        assert not any(d.exists() for d in stale.dirs) and all(d.exists() for d in fresh.dirs)
    finally:
        fresh.remove()
        stale.remove()


class _Pauses:
    """Stands for threading.Event in graders.cgroups: records each pause of `remove`, and after `until`
    pauses empties the group (deletes what keeps its folder from being removed); -1: never."""

    def __init__(self, blocker: Path, until: int):
        self.pauses, self.blocker, self.until = [], blocker, until

    def __call__(self):
        return self

    def wait(self, seconds: float) -> bool:
        self.pauses.append(seconds)
        if len(self.pauses) == self.until:
            self.blocker.unlink()
        time.sleep(seconds)
        return False


def test_removing_a_group_retries_soon_then_less_often(tmp_path, monkeypatch):
    """Tasks leave a control group lazily after the child ends (here, a few milliseconds): `remove` tries again
    after 1 ms, then twice as long each time up to 50 ms (a fixed 50 ms pause added 50 ms to every child's
    wall time), and removes the group once it is empty."""
    folder = tmp_path / "autograde-test"
    folder.mkdir()
    pauses = _Pauses(folder / "task", until=4)
    pauses.blocker.write_text("")  # a folder that is not empty cannot be removed: a group with a task left
    monkeypatch.setattr(cgroups.threading, "Event", pauses)
    cgroups.ProcessGroup([folder], v2=True).remove()
    assert not folder.exists()
    np.testing.assert_allclose(pauses.pauses, [0.001, 0.002, 0.004, 0.008])


def test_a_group_that_stays_busy_is_left_after_the_retry_time(tmp_path, monkeypatch):
    """A group whose tasks never leave is left for a later sweep once REMOVE_SECONDS have passed; no pause is
    longer than 50 ms."""
    folder = tmp_path / "autograde-test"
    folder.mkdir()
    pauses = _Pauses(folder / "task", until=-1)
    pauses.blocker.write_text("")
    monkeypatch.setattr(cgroups.threading, "Event", pauses)
    monkeypatch.setattr(cgroups, "REMOVE_SECONDS", 0.3)
    started = time.monotonic()
    cgroups.ProcessGroup([folder], v2=True).remove()
    assert folder.exists() and time.monotonic() - started >= 0.3  # (a busy machine wakes the pauses late)
    np.testing.assert_allclose(pauses.pauses, [min(0.001 * 2 ** i, 0.05) for i in range(len(pauses.pauses))])
    assert sum(pauses.pauses) <= 0.3 + 0.05


def test_child_controlled_strings_in_notes_are_cut_and_counted_once():
    """Forged `start` events whose probe id is a million characters (repr: 10 bytes each) put the red
    team's batch at 1.9 GB: a note quotes at most 80 characters, each distinct note once, at most 20."""
    attempt = probe._Attempt(probe.ChildConfig(Path("."), Path("."), Path("."), ["p"], 0), ["p"], probe.Limits(),
                             0, probe.ChannelBudget(), time.monotonic(), time.monotonic() + 60)
    for i in range(40):
        attempt._event(json.dumps({"nonce": attempt.nonce, "event": "start", "probe": str(i) + "\U0001F600" * 200_000}).encode())
    attempt._event(json.dumps({"nonce": attempt.nonce, "event": "fault", "error": {"type": "X" * 10**6, "message": "y" * 10**6}}).encode())
    assert len(attempt.tampered) == probe.MAX_NOTES and max(map(len, attempt.tampered)) < 200
    assert len(attempt.fault) < 2300


@needs_strong
def test_locks_and_inotify_on_the_shared_runtime_are_refused():
    """The red team's covert channel: flock() on the runtime's read-only files (the same inodes in every
    sandbox) signalled bits from one student to another in `batch --jobs 2`. Locks, lock queries and
    inotify fail; ordinary fcntl (F_GETFD) and reading still work."""
    code = textwrap.dedent("""
        import errno, fcntl, os, struct
        target = os.__file__
        fd = os.open(target, os.O_RDONLY)
        outcomes = []
        for name, call in [("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                           ("lockf", lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                           ("getlk", lambda: fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)))]:
            try:
                call(); outcomes.append(name + ":ok")
            except OSError as exc:
                outcomes.append(name + ":" + errno.errorcode[exc.errno])
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        outcomes.append("inotify:" + ("ok" if libc.inotify_init1(0) >= 0 else errno.errorcode[ctypes.get_errno()]))
        outcomes.append("getfd:" + str(fcntl.fcntl(fd, fcntl.F_GETFD)))
        outcomes.append("read:" + str(len(os.read(fd, 10))))
        print(" ".join(outcomes))
    """)
    out = _run_boxed(code)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["flock:EPERM", "lockf:EPERM", "getlk:EPERM", "inotify:EPERM", "getfd:1", "read:10"], out.stdout


@needs_strong
def test_no_user_namespace_inside_the_sandbox_but_threads_and_forks_work():
    """The red team created a user namespace (and mounted a tmpfs in it) inside the sandbox: needless
    kernel surface. unshare/clone with CLONE_NEWUSER fail; clone3 says ENOSYS and the C library falls
    back to clone, so threads, fork and subprocess still work."""
    code = textwrap.dedent("""
        import ctypes, errno, os, subprocess, sys, threading
        libc = ctypes.CDLL(None, use_errno=True)
        user = libc.unshare(0x10000000)
        user_errno = ctypes.get_errno()
        seen = []
        worker = threading.Thread(target=lambda: seen.append(1)); worker.start(); worker.join()
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        forked = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        child = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout.strip()
        print(user, errno.errorcode.get(user_errno), len(seen), forked, child)
    """)
    out = _run_boxed(code)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["-1", "EPERM", "1", "7", "42"], out.stdout
