"""Faults (issue 6): a child killed mid-probe loses only that probe; a grader killed mid-run leaves no process
behind, and grading the same submission again works."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import hostile_kit as k
from graders.offering import get_offering

OPS, NET = k.FILES["ops"], k.FILES["network"]
REF_OPS = k.source("reference", OPS)


def park_snippet(tok: str) -> str:
    """Code for Neg.forward: rename this process after the token, then wait for a signal (SIGKILL ends it;
    SIGUSR1 lets it go on, renamed back, and compute Neg.forward right)."""
    return (
        "def _hx_attack():\n"
        "    import signal\n"
        "    signal.signal(signal.SIGUSR1, lambda *args: None)\n"
        "    with open('/proc/self/comm', 'w') as comm:\n"
        f"        comm.write('{tok}')\n"
        "    signal.pause()\n"
        "    with open('/proc/self/comm', 'w') as comm:\n"
        "        comm.write('python')\n"
    )


def parked_submission(dest, tok):
    text = REF_OPS + "\n\n" + park_snippet(tok) + "\n_HX_ARMED = [True]\ndef _hx_once():\n    if _HX_ARMED:\n" \
        "        _HX_ARMED.pop()\n        _hx_attack()\n" + k.HOOKS[OPS]
    return k.build(dest, k.with_reference({OPS: text}, ["network"]))


def wait_for(tok: str, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = k.marked_processes(tok)
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no process named {tok} appeared")


@pytest.mark.parametrize("when", ["call", "import"])
def test_child_sigkills_itself(tmp_path, when):
    """The student's code SIGKILLs its own process: at call time only that probe fails, the child is restarted
    for the rest; at import the problem scores 0; the message names the signal; the other problem is normal."""
    files = k.with_reference({OPS: k.compose(REF_OPS, OPS, "sigkill", when)}, ["network"])
    result = k.grade(k.build(tmp_path / "sub", files), ["ops", "network"])
    ops = k.problem(result, "ops")
    assert ops.fault is None
    assert "SIGKILL" in k.text_of(ops), k.text_of(ops)
    lost = {t.id for t in ops.tests if not t.passed}
    if when == "call":
        assert lost == k.NEG_TESTS
        assert all("SIGKILL" in t.message for t in ops.tests if not t.passed)
    else:
        assert ops.score == 0
    k.assert_normal(result, "network")


def _grade_killing(sub, kill_every_time: bool):
    """Grade `sub` while this test SIGKILLs the parked child from outside (as the OOM killer would): the first
    time only (then lets every later child go on), or every time."""
    box, tok = {}, sub.name
    worker = threading.Thread(target=lambda: box.update(result=k.grade(sub, ["ops", "network"])))
    worker.start()
    first = True
    try:
        while worker.is_alive():
            for pid in k.marked_processes(tok):
                os.kill(int(pid), signal.SIGKILL if first or kill_every_time else signal.SIGUSR1)
                first = False
            time.sleep(0.05)
    finally:
        worker.join(180)
    return box["result"]


def test_a_child_killed_from_outside_once_is_run_again_and_graded_right(tmp_path):
    """Like the OOM killer, once: not the student's code, so the probes it lost are run twice more (in fresh
    children) and the grade is right; the note says so."""
    tok = k.token()
    result = _grade_killing(parked_submission(tmp_path / tok, tok), kill_every_time=False)
    ops = k.problem(result, "ops")
    assert ops.fault is None and ops.score == ops.max_score, k.text_of(ops)
    assert any("run twice more" in n for n in ops.notes), ops.notes
    k.assert_normal(result, "network")
    assert not k.wait_gone(tok, 2.0)


def test_a_child_killed_from_outside_every_time_is_the_students_when_the_reference_is_not(tmp_path):
    """Killed every time while the reference solution graded the same way is not: the failure goes with the
    student's code (the control run says the grader works); only that probe is lost."""
    tok = k.token()
    result = _grade_killing(parked_submission(tmp_path / tok, tok), kill_every_time=True)
    ops = k.problem(result, "ops")
    assert ops.fault is None
    assert {t.id for t in ops.tests if not t.passed} == k.NEG_TESTS
    assert "SIGKILL" in k.text_of(ops), k.text_of(ops)
    assert any("the failure is your code's" in n for n in ops.notes), ops.notes
    k.assert_normal(result, "network")


@pytest.fixture(scope="module")
def killed_grader(tmp_path_factory):
    """`autograde grade` SIGKILLed while a probe runs (its temp dir redirected so leftovers can be seen)."""
    tmp = tmp_path_factory.mktemp("killed")
    tok = k.token()
    sub = parked_submission(tmp / "sub", tok)
    out = tmp / "out"
    (tmp / "tmpdir").mkdir()
    env = {**os.environ, "PYTHONPATH": str(k.ROOT), "TMPDIR": str(tmp / "tmpdir")}
    command = [sys.executable, "-m", "graders", "grade", str(sub), "--out", str(out), "--problems", "ops,network", "--offering", "minitorch"]
    grader = subprocess.Popen(command, cwd=k.ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(tok, 60)
        grader.send_signal(signal.SIGKILL)
        grader.wait(10)
        survivors = k.wait_gone(tok, 5.0)
    finally:
        if grader.poll() is None:
            grader.kill()
        k.reap(k.marked_processes(tok))
    leftovers = sorted(p.name for p in (tmp / "tmpdir").iterdir())
    return {"sub": sub, "out": out, "env": env, "command": command, "survivors": survivors, "leftovers": leftovers}


def test_grader_killed_mid_run_leaves_no_process_and_a_rerun_works(killed_grader):
    run = killed_grader
    assert not run["survivors"], f"the child outlived the grader: {run['survivors']}"
    assert not (run["out"] / "results.json").exists()
    # a re-run of the same command (the submission fixed meanwhile) completes normally
    k.build(run["sub"], {OPS: REF_OPS})
    rerun = subprocess.run(run["command"], cwd=k.ROOT, env=run["env"], capture_output=True, text=True, timeout=180)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    doc = json.loads((run["out"] / "results.json").read_text())
    full = get_offering("minitorch").points
    assert doc["score"] == full["ops"] + full["network"] and doc["extra_data"]["errors"] == []


def test_a_killed_graders_workspace_is_swept_by_the_next_grader(killed_grader):
    """SIGKILL leaves the workspace (nothing can run at that instant); the next grader removes it."""
    tmpdir = Path(killed_grader["env"]["TMPDIR"])
    work = tmpdir / f"autograde-work-{os.getuid()}"
    left = list(work.iterdir()) if work.is_dir() else []
    next_run = subprocess.run(killed_grader["command"], cwd=k.ROOT, env=killed_grader["env"],
                              capture_output=True, text=True, timeout=180)
    assert next_run.returncode == 0, next_run.stderr[-2000:]
    assert sorted(p.name for p in tmpdir.iterdir()) == [work.name]
    assert list(work.iterdir()) == [], f"left behind: {left}"


def test_each_user_has_a_work_folder_and_a_foreign_one_is_refused(tmp_path, monkeypatch):
    """A TA grading after root on the same machine gets a folder of their own; a folder of that name made by
    someone else (say, in a shared /tmp, to read or swap what is graded) is refused with its path named."""
    from graders import workspace

    assert workspace.WORK_BASE.name == f"autograde-work-{os.getuid()}"
    mine = tmp_path / "mine"
    monkeypatch.setattr(workspace, "WORK_BASE", mine)
    mine.mkdir(mode=0o777)
    mine.chmod(0o777)
    assert workspace.work_base() == mine and mine.stat().st_mode & 0o777 == 0o755
    if os.getuid() != 0:
        pytest.skip("making a folder owned by another user needs root")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    os.chown(foreign, 65534, 65534)
    monkeypatch.setattr(workspace, "WORK_BASE", foreign)
    with pytest.raises(PermissionError, match=str(foreign)):
        workspace.work_base()
    link = tmp_path / "link"
    link.symlink_to(mine)
    monkeypatch.setattr(workspace, "WORK_BASE", link)
    with pytest.raises(PermissionError, match=str(link)):
        workspace.work_base()
