"""Time limits count the child's own time, not the machine's (graders.waiting): honest code a busy machine slows
keeps its points, code that loops or sleeps is stopped as before, and a machine too busy to grade is the grader's
failure, said as such, never a student's lost points."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from graders import probe, sandbox
from graders.grade import GradeOptions, grade_submission
from graders.score import FAULT_MESSAGE
from graders.waiting import MAX_STRETCH, Window, run_queue_waits

LIMIT = 10.0


def window(cpu_at_start=0.0):
    return Window(started=100.0, limit=LIMIT, cpu_at_start=cpu_at_start, waits_at_start={7: 2_000_000_000})


def waits(seconds):
    """Thread 7 waited `seconds` for a CPU since the window started (it had waited 2 s before)."""
    return {7: 2_000_000_000 + int(seconds * 1e9)}


@pytest.mark.parametrize("wall,cpu,waited,verdict", [
    (10.0, 10.0, 0.0, "over"),  # a loop on a quiet machine: its own time
    (10.0, 9.9, 0.1, "stretch"),  # 0.1 s taken by the machine: looked at again 0.5 s later
    (10.0, 0.0, 0.0, "over"),  # a sleep: it waited for no CPU
    (10.0, 3.0, 7.0, "stretch"),  # slowed: 3 s of its own time in 10
    (25.0, 10.0, 15.0, "over"),  # a loop on a busy machine: stopped at 10 s of CPU however long that took
    (12.0, 9.0, 40.0, "stretch"),  # threads waiting for each other's CPU: bounded by the CPU it uses
    (12.0, 10.5, 40.0, "over"),
    (MAX_STRETCH * LIMIT, 9.0, 31.5, "busy"),  # waited 31.5 s of 40: the machine's
    (MAX_STRETCH * LIMIT, 9.0, 30.0, "over"),  # 10 s of its own time in 40: its own
])
def test_a_limit_counts_the_childs_own_time(wall, cpu, waited, verdict):
    assert window(5.0).verdict(100.0 + wall, 5.0 + cpu, waits(waited)) == verdict


def test_threads_waiting_at_the_same_moment_count_it_once():
    """Forty processes that spin a millisecond together every two seconds wait 0.8 s in all for 40 ms of CPU: the
    child is credited the waits of its two longest-waiting threads, so a probe that sleeps between such bursts is
    stopped by 3 W on a quiet machine (its own time), never read as a machine too busy to grade."""
    bursts = dict.fromkeys(range(100, 140), 8_000_000 * 5)  # new threads: 5 bursts in 10 s, 8 ms of wait each
    assert window().waited(bursts) == pytest.approx(0.08)  # summed: 1.6 s, and the sleep would be stretched
    assert window().verdict(110.5, 0.2, bursts) == "over"


def test_a_probe_taking_turns_between_two_processes_is_credited_both_waits():
    """The student's process and the trusted one take turns, each waiting for a CPU at its own turns: both waits
    are the machine's (3 s + 3 s of 10: own time 4 s, stretched); a third thread adds nothing."""
    turns = {7: 2_000_000_000 + 3_000_000_000, 8: 3_000_000_000}
    assert window().waited(turns) == pytest.approx(6.0)
    assert window().waited({**turns, 9: 3_000_000_000}) == pytest.approx(6.0)
    assert window().verdict(110.0, 2.0, turns) == "stretch"


def test_a_thread_that_ended_or_a_clock_that_did_not_say_counts_no_wait():
    """A thread gone since the window started takes its count with it (the child is judged as before); a new one
    counts all of its waiting; no CPU clock: the bound on CPU is not applied, the own-time one still is."""
    assert window().waited({}) == 0.0
    assert window().waited({8: 3_000_000_000}) == pytest.approx(3.0)
    assert window().verdict(110.0, None, {}) == "over"
    assert window().verdict(110.0, None, waits(8.0)) == "stretch"
    assert window().until(110.0) == pytest.approx(110.5) and window().until(139.9) == pytest.approx(140.0)


def test_the_kernel_counts_the_wait_of_two_spinners_on_one_cpu():
    """Two processes spinning on the same CPU wait for each other: about half of 0.6 s each, whatever else the
    machine runs (neighbours only add to it); a sleeping process waits for no CPU; once one process runs at a raised
    nice, a raised autogroup nice or SCHED_IDLE, nothing is credited to any."""
    cpu = min(os.sched_getaffinity(0))
    children = []
    for spin, lowered in ((True, None), (True, None), (False, None), (True, "nice"), (True, "idle"),
                          (True, "autogroup")):
        pid = os.fork()
        if pid == 0:
            os.sched_setaffinity(0, {cpu})
            if lowered == "nice":
                os.nice(10)
            elif lowered == "idle":
                os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            elif lowered == "autogroup":
                os.setsid()  # its own session: its own autogroup
                try:
                    with open("/proc/self/autogroup", "w") as handle:
                        handle.write("19")
                except OSError:
                    pass
            end = time.monotonic() + 0.6
            while spin and time.monotonic() < end:
                pass
            if not spin:
                time.sleep(0.6)
            time.sleep(5)  # alive while it is read
            os._exit(0)
        children.append(pid)
    try:
        time.sleep(1.2)
        spinners = run_queue_waits(children[:2])
        sleeper = run_queue_waits(children[2:3])
        reniced, idle = run_queue_waits(children[3:4]), run_queue_waits(children[4:5])
        autogroup = run_queue_waits(children[5:])
        lowered_autogroup = open(f"/proc/{children[5]}/autogroup").read().split()[-1] == "19"
        everyone = run_queue_waits(children)
    finally:
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    assert len(spinners) == 2 and sum(spinners.values()) / 1e9 > 0.2, spinners
    assert len(sleeper) == 1 and sum(sleeper.values()) / 1e9 < 0.1, sleeper
    assert idle == {} and everyone == {}
    if os.getpriority(os.PRIO_PROCESS, 0) < 19:  # nice 10 more than the runner's is lowered unless it was 19 already
        assert reniced == {}
    if lowered_autogroup:
        assert autogroup == {}


def _slowed_forward(tmp_path, seconds):
    """The reference's forward.py whose jvp waits `seconds` (as code a busy machine slowed would) on its first call at
    the slides' point along x1: one probe waits, not the first of every restart after a timeout."""
    text = (ROOT / "reference" / "minitorch" / "forward.py").read_text(encoding="utf-8")
    text += (f"\n\n_SLOW = [True]\n_jvp = jvp\n\n\ndef jvp(f, primals, tangents):\n"
             f"    if _SLOW and list(primals) == [3.0, 0.5] and list(tangents) == [1.0, 0.0]:\n        _SLOW.pop()\n"
             f"        import time\n        time.sleep({seconds})\n    return _jvp(f, primals, tangents)\n")
    dest = tmp_path / "minitorch" / "forward.py"
    dest.parent.mkdir(parents=True)
    dest.write_text(text, encoding="utf-8")
    return tmp_path


def _grade(folder, probe_seconds):
    options = GradeOptions(offering="all", problems=["forward"],
                           limits={"probe_seconds": probe_seconds, "wall_seconds": 30})
    (result,) = grade_submission(folder, options).problems
    return result


@pytest.fixture
def busy_machine(monkeypatch):
    """The kernel saying the child's threads waited for a CPU 90 % of the time since now."""
    started = time.monotonic()
    monkeypatch.setattr(probe, "run_queue_waits", lambda pids: {1: int((time.monotonic() - started) * 0.9e9)})


@pytest.fixture(params=["here", "weak"])
def any_level(request, monkeypatch):
    """This machine's sandbox level, and the weak one (no control group: the child's process tree counts its CPU)."""
    if request.param == "weak":
        monkeypatch.setattr(sandbox, "capabilities", lambda: sandbox.Capabilities(None, None, None, os.geteuid() == 0))
    return request.param


def test_a_probe_the_machine_slowed_keeps_its_points(tmp_path, busy_machine, any_level):
    """1.25 s of wall clock under a 0.75 s limit, but 0.125 s of it its own: the limit stretches (up to MAX_STRETCH
    times it, 3 s), full marks. At the weak level (no PID namespace: the submission's own processes may leave the
    tree and hold the CPU) nothing stretches: a limit passed after waiting a quarter of it is not graded (a grader
    fault that says why, regraded by staff), never points lost."""
    result = _grade(_slowed_forward(tmp_path, 1.25), probe_seconds=0.75)
    if any_level == "weak":
        assert result.fault is not None and "at the weak sandbox level" in result.fault, result.fault
        assert result.errors == [FAULT_MESSAGE]
        return
    assert result.fault is None and result.score == result.max_score, [t.message for t in result.tests if not t.passed]


def test_a_probe_that_sleeps_still_times_out(tmp_path, any_level):
    """A wait on a quiet machine is the code's own: timed out at 0.5 s, its points lost (the 2.5 s the code asks
    for are cut there, so they cost no more than a shorter wait), at every level."""
    result = _grade(_slowed_forward(tmp_path, 2.5), probe_seconds=0.5)
    assert result.fault is None and result.score < result.max_score
    assert any("timed out after 0.5 s" in t.message for t in result.tests if not t.passed), result.notes


def test_a_machine_too_busy_to_grade_is_the_graders_failure(tmp_path, busy_machine):
    """Never finishing while the machine keeps it waiting: past MAX_STRETCH times the limit the problem is not
    graded (retried once, then a grader fault that says why), no point lost. (A limit of 0.5 s: each attempt waits
    MAX_STRETCH times it.)"""
    result = _grade(_slowed_forward(tmp_path, 10 * 24 * 3600), probe_seconds=0.5)
    assert result.fault is not None and "the machine is too busy to grade it fairly" in result.fault, result.fault
    assert result.errors == [FAULT_MESSAGE]  # the report's "not graded: the grader failed", regraded by staff


class _Group:
    """A control group that counts 0.1 s of CPU and holds one process."""

    def cpu_seconds(self):
        return 0.1

    def pids(self):
        return [1]


def test_a_probes_stretch_is_added_to_the_problems_clock_and_only_with_all_cpu_counted(monkeypatch, tmp_path):
    """What a probe's limit is stretched by moves the problem's wall clock too (carried to the next attempt by
    run_child), so a problem whose probes a busy machine slowed is not stopped by its own clock instead; without a
    control group counting all of the child's CPU nothing is credited and the limit passes as before."""
    started = 1000.0
    monkeypatch.setattr(probe, "run_queue_waits", lambda pids: {1: 900_000_000})  # 0.9 s of the first second
    config = probe.ChildConfig(tmp_path, tmp_path, tmp_path, ["p"], 0)
    attempt = probe._Attempt(config, ["p"], probe.Limits(probe_seconds=1, wall_seconds=2), 0, probe.ChannelBudget(),
                             started, started + 2)
    attempt.group, attempt.level = _Group(), "strong"
    attempt.current, attempt.probe_until = "p", started + 1
    attempt.probe_window = Window(started, 1.0, 0.1, {1: 0})
    assert not attempt._limit_passed(started + 1.0, "p")  # waited 0.9 s of 1: stretched by a step
    assert attempt.probe_until == pytest.approx(started + 1.5) and attempt.granted == pytest.approx(0.5)
    assert attempt.deadline == pytest.approx(started + 2.5) and attempt.deadline_window.limit == pytest.approx(2.5)
    attempt.group = None  # and no process tree to count either
    assert attempt._limit_passed(started + 1.5, "p") and "timed out after 1 s" in attempt.reason


def _spawn(ignore_children):
    """A process (SIGCHLD ignored or not) that forks one child and sleeps."""
    code = ("import os, signal, time\n"
            f"{'signal.signal(signal.SIGCHLD, signal.SIG_IGN)' if ignore_children else 'pass'}\n"
            "if os.fork() == 0:\n    time.sleep(30)\n    os._exit(0)\ntime.sleep(30)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    deadline = time.monotonic() + 10
    while len(probe._tree(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


def test_at_the_weak_level_a_short_wait_is_the_codes_own(monkeypatch, tmp_path):
    """At the weak level a limit is never stretched: a wait under a quarter of the limit leaves it the code's
    timeout, a longer one is not graded (`busy`: the grader's fault, said as the level's)."""
    started = 1000.0
    config = probe.ChildConfig(tmp_path, tmp_path, tmp_path, ["p"], 0)
    for waited, stopped_as in ((0.2, "timed out after 1 s"), (0.3, "at the weak sandbox level")):
        monkeypatch.setattr(probe, "run_queue_waits", lambda pids, w=waited: {1: int(w * 1e9)})
        attempt = probe._Attempt(config, ["p"], probe.Limits(probe_seconds=1, wall_seconds=2), 0,
                                 probe.ChannelBudget(), started, started + 2)
        attempt.group, attempt.level = _Group(), "weak"
        attempt.current, attempt.probe_until = "p", started + 1
        attempt.probe_window = Window(started, 1.0, 0.1, {1: 0})
        assert attempt._limit_passed(started + 1.0, "p") and stopped_as in attempt.reason, attempt.reason
        assert (attempt.busy is not None) == (waited > 0.25) and attempt.granted == 0


@pytest.mark.parametrize("ignore_children", [False, True])
def test_without_a_control_group_the_process_tree_counts_unless_it_hides_children(tmp_path, ignore_children):
    """With no control group the child's CPU is its process tree's (every thread, live or reaped) and its threads'
    waits are credited; a tree in which a process ignores SIGCHLD (the kernel reaps its children, their CPU charged
    to no process the tree shows) is credited nothing."""
    proc = _spawn(ignore_children)
    try:
        attempt = probe._Attempt(probe.ChildConfig(tmp_path, tmp_path, tmp_path, ["p"], 0), ["p"],
                                 probe.Limits(), 0, probe.ChannelBudget(), 0.0, 1.0)
        attempt.proc = proc
        cpu, waits = attempt._counted()
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
    if ignore_children:
        assert (cpu, waits) == (None, {})
    else:
        assert cpu is not None and 0 < cpu < 5 and len(waits) == 2 and proc.pid in waits, (cpu, waits)


def test_a_limit_is_said_as_it_was_set():
    """A limit of a fraction of a second is said as set ("timed out after 0 s" before), a whole one as a whole."""
    assert [probe._seconds(x) for x in (20.0, 90, 1.5, 0.5, 0.25, 3.70001)] == ["20", "90", "1.5", "0.5", "0.25", "3.7"]
