"""The unprivileged sandbox level (issue 11): a TA or a CI runner without root, where bubblewrap can make a
user namespace, grades at level "unprivileged" (not "weak"), and the fork, survivor and network attacks
stay contained there.

Run for real as another user: root copies what the grader reads to a world-readable folder, builds a venv
from the system's Python outside /root (pyenv's interpreters live in /root, which other users cannot
enter), installs the copy into it, and runs a driver as uid 65534 (`setpriv`), after root has graded on
this machine. Skipped, saying why, where that
cannot be arranged.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"

DRIVER = textwrap.dedent("""
    import json, os, subprocess, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import hostile_kit as k
    from graders import sandbox
    work = Path(sys.argv[2])
    report = {"level": sandbox.capabilities().level, "uid": os.getuid()}
    from graders.batch import BatchOptions, require_sandbox
    from graders.submissions import BatchUsageError
    try:
        require_sandbox(BatchOptions())  # batch without --allow-weak-sandbox
        report["batch_refuses"] = None
    except BatchUsageError as exc:
        report["batch_refuses"] = str(exc)

    # 1. the process limit counts the sandbox's processes only: 30 of the user's own are running already
    sleepers = [subprocess.Popen(["/bin/sleep", "120"]) for _ in range(30)]
    fork_until_refused = (
        "import os, sys, time\\n"
        "n = 0\\n"
        "while n < 500:\\n"
        "    try:\\n"
        "        pid = os.fork()\\n"
        "    except OSError:\\n"
        "        break\\n"
        "    if pid == 0:\\n"
        "        time.sleep(30); os._exit(0)\\n"
        "    n += 1\\n"
        "print(n, flush=True)\\n"
        "os._exit(0)\\n")
    argv, _ = sandbox.bwrap_command({}, None, None, program=["-c", fork_until_refused],
                                    userns=sandbox.UserNamespace(64 << 20, 16))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    report["forks"] = done.stdout.strip() or done.stderr[-500:]
    for p in sleepers:
        p.kill(); p.wait()

    # 2. fork bomb and daemons inside a graded problem: the probes complete, nothing outlives the sandbox
    ref_ops = k.source("reference", k.FILES["ops"])
    report["attacks"] = {}
    for attack, when in (("forkbomb", "call"), ("detach", "call"), ("detach", "import")):
        tok = k.token()
        files = {k.FILES["ops"]: k.compose(ref_ops, k.FILES["ops"], attack, when, token=tok)}
        result = k.grade(k.build(work / f"{attack}_{when}", files), ["ops"], k.FAST)
        ops = k.problem(result, "ops")
        report["attacks"][f"{attack}@{when}"] = {"score": ops.score, "max": ops.max_score,
                                                 "survivors": k.wait_gone(tok, 3.0), "sandbox": result.sandbox}

    # 3. no network: a listener of this user; the attack is right only if it connects
    seen = k.network_attack(work / "net")
    report["network"] = {"accepted_before": seen.accepted_before, "accepted_after": seen.accepted_after,
                         "attacked": k.scores(seen.attacked), "baseline": k.scores(seen.baseline),
                         "baseline_score": seen.baseline.score, "max": seen.baseline.max_score}
    print("REPORT " + json.dumps(report))
""")


def _as_nobody(argv, env, timeout):
    return subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *map(str, argv)],
                          env=env, capture_output=True, text=True, timeout=timeout)


def _world_readable_copy(dest: Path) -> Path:
    """What the grader and the driver read, copied where uid 65534 can read it (the checkout itself may sit
    under a folder only root can enter): the Gradescope payload (pyproject.toml, graders, reports,
    problems, reference) plus the hostile kit and its attack files."""
    from graders.gradescope import build_zip

    archive = dest.parent / "payload.zip"
    build_zip(archive, ROOT)
    with zipfile.ZipFile(archive) as payload:
        payload.extractall(dest)
    archive.unlink()
    (dest / "tests" / "files").mkdir(parents=True)
    for helper in ("hostile_kit.py", "cases.py"):  # the kit builds its bases from the problems' cases
        shutil.copy2(ROOT / "tests" / helper, dest / "tests" / helper)
    shutil.copytree(ROOT / "tests" / "files" / "hostile", dest / "tests" / "files" / "hostile")
    return dest


@pytest.fixture(scope="module")
def nobody_python():
    """A venv of the system's Python with a world-readable copy of this repository installed, usable by
    uid 65534: (python, home folder of that user, the copy)."""
    if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("bwrap"):
        pytest.skip("needs root (to run as another user), setpriv and bubblewrap")
    if not Path(SYSTEM_PYTHON).exists():
        pytest.skip(f"no {SYSTEM_PYTHON} outside /root for the unprivileged user")
    base = Path(tempfile.mkdtemp(prefix="autograde-unprivileged-"))
    try:
        base.chmod(0o755)
        venv = base / "venv"
        made = subprocess.run([SYSTEM_PYTHON, "-m", "venv", venv], capture_output=True, text=True, timeout=120)
        if made.returncode != 0:
            pytest.skip(f"{SYSTEM_PYTHON} cannot make a venv: {made.stderr[-300:]}")
        source = _world_readable_copy(base / "source")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "AUTOGRADE_", "VIRTUAL_ENV"))}
        installed = subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", source], env=env,
                                   cwd=base, capture_output=True, text=True, timeout=600)
        assert installed.returncode == 0, installed.stderr[-3000:]
        subprocess.run(["chmod", "-R", "a+rX", base], check=True)
        home = base / "home"
        home.mkdir()
        os.chown(home, NOBODY, NOBODY)
        yield venv / "bin" / "python", home, source
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_unprivileged_user_grades_at_the_unprivileged_level_and_attacks_stay_contained(nobody_python):
    python, home, source = nobody_python
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "AUTOGRADE_ROOT": str(source),
           "AUTOGRADE_CACHE": str(home / "cache"), "AUTOGRADE_SLOT_DIR": str(home / "slots")}
    trial = _as_nobody(["bwrap", "--unshare-user", "--ro-bind", "/", "/", "--", "/bin/true"], env, 30)
    if trial.returncode != 0:
        pytest.skip(f"bubblewrap cannot make a user namespace as an unprivileged user here: {trial.stderr[-300:]}")
    work = home / "work"
    done = _as_nobody([python, "-c", DRIVER, source / "tests", work], env, 880)
    lines = [line for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    assert done.returncode == 0 and lines, done.stdout[-2000:] + done.stderr[-4000:]
    report = json.loads(lines[-1][len("REPORT "):])
    print(json.dumps(report))
    assert report["uid"] == NOBODY and report["level"] == "unprivileged", report
    assert report["batch_refuses"] is None, report
    # 30 processes of the same user were already running: the limit of 16 still let the sandbox fork up to it
    forks = int(report["forks"])
    assert 10 <= forks <= 16, report["forks"]
    for attack, seen in report["attacks"].items():
        assert seen["sandbox"] == "unprivileged", (attack, seen)
        assert seen["score"] == seen["max"], (attack, seen)  # the attack runs on the side; the probes complete
        assert seen["survivors"] == [], (attack, seen)  # the PID namespace takes every process down
    net = report["network"]
    assert net["accepted_before"] == 1 and net["accepted_after"] == 1, net  # only the listener's own check arrived
    assert net["baseline_score"] < net["max"] and net["attacked"] == net["baseline"], net


def _caps(options, nproc_per_userns):
    from graders import sandbox

    return sandbox.Capabilities(bwrap="/usr/bin/bwrap", setpriv="/usr/bin/setpriv", prlimit="/usr/bin/prlimit",
                                is_root=False, userns=True, bwrap_options=frozenset(options),
                                nproc_per_userns=nproc_per_userns)


def test_the_unprivileged_command_uses_only_what_this_bubblewrap_and_kernel_support(monkeypatch):
    """Ubuntu 22.04's bubblewrap (0.6) has no --disable-userns; before Linux 5.14 a process limit counts
    all of the user's processes (setting one would fail the sandbox's own forks). Both are left out and
    said; a current machine gets them all."""
    from graders import sandbox

    userns = sandbox.UserNamespace(64 << 20, 16)
    old = _caps({"--unshare-user", "--tmpfs", "--perms"}, nproc_per_userns=False)
    monkeypatch.setattr(sandbox, "capabilities", lambda: old)
    argv, _ = sandbox.bwrap_command({}, None, None, program=["-c", "pass"], userns=userns)
    assert old.level == "unprivileged" and "--unshare-user" in argv
    assert "--disable-userns" not in argv and "--size" not in argv and not [a for a in argv if a.startswith("--nproc")]
    said = " ".join(old.missing())
    assert "Linux 5.14" in said and "bubblewrap 0.5" in said
    new = _caps({"--unshare-user", "--tmpfs", "--perms", "--size", "--disable-userns"}, nproc_per_userns=True)
    monkeypatch.setattr(sandbox, "capabilities", lambda: new)
    argv, _ = sandbox.bwrap_command({}, None, None, program=["-c", "pass"], userns=userns)
    assert "--disable-userns" in argv and argv.count("--size") == 2 and "--nproc=16" in argv
    assert argv.index("--nproc=16") > argv.index("--unshare-user")  # set inside the namespace, after bwrap
    assert "setpriv" not in " ".join(argv)
