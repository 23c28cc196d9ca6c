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
import threading
import zipfile
from pathlib import Path

import pytest

from graders import sandbox

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


def _driver_report(nobody_python, driver: str, folder: str) -> dict:
    """Run `driver` as the unprivileged user (skipped where bubblewrap cannot make a user namespace as that user);
    its REPORT line, after checking it ran at the unprivileged level as that user."""
    python, home, source = nobody_python
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "AUTOGRADE_ROOT": str(source),
           "AUTOGRADE_CACHE": str(home / "cache"), "AUTOGRADE_SLOT_DIR": str(home / "slots")}
    trial = _as_nobody(["bwrap", "--unshare-user", "--ro-bind", "/", "/", "--", "/bin/true"], env, 30)
    if trial.returncode != 0:
        pytest.skip(f"bubblewrap cannot make a user namespace as an unprivileged user here: {trial.stderr[-300:]}")
    done = _as_nobody([python, "-c", driver, source / "tests", home / folder], env, 880)
    lines = [line for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    assert done.returncode == 0 and lines, done.stdout[-2000:] + done.stderr[-4000:]
    report = json.loads(lines[-1][len("REPORT "):])
    print(json.dumps(report))
    assert report["uid"] == NOBODY and report["level"] == "unprivileged", report
    return report


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_unprivileged_user_grades_at_the_unprivileged_level_and_attacks_stay_contained(nobody_python):
    report = _driver_report(nobody_python, DRIVER, "work")
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


LIMITS_DRIVER = textwrap.dedent("""
    import json, os, subprocess, sys, tempfile
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import hostile_kit as k
    from graders import sandbox
    from graders.limits import Limits
    work = Path(sys.argv[2])
    caps = sandbox.capabilities()
    report = {"level": caps.level, "uid": os.getuid(), "userns_mounts": getattr(caps, "userns_mounts", None)}

    # 1. the view as the grader builds it at this level: which places the child can write, and their caps
    try_writes = (
        "import json, os\\n"
        "seen = {}\\n"
        "for place in ['/', '/dev', '/dev/shm', '/sandbox', '/sandbox/student', '/usr', '/work', '/tmp']:\\n"
        "    try:\\n"
        "        os.mkdir(os.path.join(place, 'hx_probe')); seen[place] = 'written'\\n"
        "    except OSError as exc:\\n"
        "        seen[place] = os.strerror(exc.errno)\\n"
        "with open('/dev/null', 'w') as null:\\n"
        "    null.write('x')\\n"
        "stat = os.statvfs('/tmp')\\n"
        "print(json.dumps({'writes': seen, 'tmp_inodes': stat.f_files, 'tmp_bytes': stat.f_blocks * stat.f_frsize}))\\n")
    limits = Limits()
    student = work / "student.py"
    student.parent.mkdir(parents=True, exist_ok=True)
    student.write_text("x = 1\\n")
    mounted = bool(getattr(caps, "userns_mounts", False))
    scratch = Path(tempfile.mkdtemp(dir=work))
    extra = {"mounted": True} if mounted else {}
    userns = sandbox.UserNamespace(limits.tmp_mib << 20, 16, **extra)
    argv, _ = sandbox.bwrap_command({"student/student.py": student}, None, scratch if mounted else None,
                                    program=["-c", try_writes], userns=userns)
    if mounted:
        argv = sandbox.confine_prefix(scratch, [], limits.tmp_mib, limits.tmp_inodes, user_namespace=True) + argv
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    report["view"] = json.loads(done.stdout) if done.returncode == 0 else done.stderr[-1000:]

    # 2. the three host attacks, graded (ops: a 1536 MiB problem)
    OPS = k.FILES["ops"]
    ref_ops = k.source("reference", OPS)
    limits = {"probe_seconds": 30, "wall_seconds": 60}
    report["attacks"] = {}
    for attack, subs, gate in (("limits_shm_flood", {}, "_hx_nothing_written"),
                               ("limits_fan_out", {"mib": 1000}, None),
                               ("limits_mkdir_flood", {"cap": Limits().tmp_inodes}, "_hx_stopped_at_cap")):
        tok = k.token()
        files = {OPS: k.compose(ref_ops, OPS, attack, "call", gate=gate, token=tok, **subs)}
        result = k.grade(k.build(work / attack, files), ["ops"], limits)
        ops = k.problem(result, "ops")
        report["attacks"][attack] = {
            "score": ops.score, "max": ops.max_score, "peak_mib": ops.peak_mib, "oom_kills": ops.oom_kills,
            "fault": ops.fault, "sandbox": result.sandbox,
            "said": [line for line in k.text_of(ops).splitlines() if "limit" in line or "files and folders" in line],
            "survivors": k.wait_gone(tok, 3.0), "files": k.files_named(tok, k.leftover_roots() + [work])}

    # 3. the instructor mutants' runs (they only name misconceptions of wrong numbers) are left out of what
    # follows: this user's cache is cold, and autodiff's eight mutants, timing probes and all, would cost more than
    # the rest. What runs is the reference's: its trusted run and each file graded as a student's, in the sandbox.
    import graders.grade as stages
    from graders.baseline import reference_run
    stages.baseline_runs = lambda spec, seed: (reference_run(spec, seed), lambda: [])

    # 4. what the student's process reaches of the trusted process (issue 21)
    AD = k.FILES["autodiff"]
    peek = k.grade(k.build(work / "peek", {AD: k.compose(k.source("reference", AD), AD, "peek_trusted")}), ["autodiff"])
    text = k.text_of(k.problem(peek, "autodiff"))
    report["peek"] = next((line for line in text.splitlines() if "PEEK" in line), text[:500])

    # 5. the reference, every problem of the offering: full marks under the read-only view and the watchdog
    reference = k.grade(k.build(work / "reference", k.with_reference({}, k.FILES)), list(k.FILES))
    report["reference"] = {p.id: {"score": p.score, "max": p.max_score, "fault": p.fault, "peak_mib": p.peak_mib,
                                  "failed": [t.id for t in p.tests if not t.passed]} for p in reference.problems}
    print("REPORT " + json.dumps(report))
""")

#: how far over the problem's memory limit the watchdog may see the unprivileged sandbox's tree before it kills
#: it: what five forked children touching pages can add in one WATCH_SECONDS (10 ms) and a look at the tree
WATCH_MARGIN_MIB = 128


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_unprivileged_level_bounds_the_host_like_the_strong_one(nobody_python):
    """Issue 21: at the unprivileged level (no control group) the view's root, /dev and /dev/shm were writable
    tmpfs without a cap (250 x 8 MiB into /dev/shm: +2 GB of the host's shared memory), a fork fan-out held
    3.2 GB for a 1.5 GiB problem, and 300,000 mkdirs cost +301 MB of kernel memory. Asserted on the sandbox's
    own accounting: only /work and /tmp are writable, with their byte and inode caps; the fan-out is killed by
    the grader's watchdog at the problem's memory limit (its recorded peak within a small margin); the shm and
    mkdir floods are refused (the correct code they ride on keeps full marks); nothing is left behind; the reference
    of every problem keeps full marks under the watchdog (its trusted run and its graded run; the instructor mutants'
    runs, which only name misconceptions, are not made for this user's cold cache)."""
    report = _driver_report(nobody_python, LIMITS_DRIVER, "work-limits")
    from graders.limits import Limits

    limits = Limits()
    view = report["view"]
    assert isinstance(view, dict), view
    for place in ("/", "/dev", "/dev/shm", "/sandbox", "/sandbox/student", "/usr"):
        assert view["writes"][place] == "Read-only file system", (place, view)
    assert view["writes"]["/work"] == view["writes"]["/tmp"] == "written", view
    assert view["tmp_bytes"] == limits.tmp_mib << 20, view
    if report["userns_mounts"]:  # the kernel's inode cap (else the watchdog's: below)
        assert view["tmp_inodes"] == limits.tmp_inodes, view
    for what in ("mem", "maps", "environ", "fd"):  # the trusted process is out of the student's process's reach
        assert f"{what}: PermissionError" in report["peek"], report["peek"]
    assert "CapEff: 0000000000000000" in report["peek"], report["peek"]
    attacks = report["attacks"]
    for attack, seen in attacks.items():
        assert seen["sandbox"] == "unprivileged" and seen["fault"] is None, (attack, seen)
        assert seen["survivors"] == [] and seen["files"] == [], (attack, seen)
    shm = attacks["limits_shm_flood"]
    assert shm["score"] == shm["max"], shm  # not one file written to /dev/shm
    fan = attacks["limits_fan_out"]
    memory = 1536  # problems/ops/problem.toml
    assert fan["oom_kills"] >= 1 and any("memory limit (1536 MiB)" in line for line in fan["said"]), fan
    assert fan["peak_mib"] is not None and 1000 <= fan["peak_mib"] <= memory + WATCH_MARGIN_MIB, fan
    for pid, graded in report["reference"].items():  # the watchdog never stops the reference
        assert graded["fault"] is None and graded["score"] == graded["max"] and graded["max"] > 0, (pid, graded)
    mkdirs = attacks["limits_mkdir_flood"]
    if report["userns_mounts"]:
        assert mkdirs["score"] == mkdirs["max"], mkdirs  # refused at the cap: the correct code graded as it is
    else:
        assert any("more files and folders" in line for line in mkdirs["said"]), mkdirs


def test_the_unprivileged_view_is_read_only_but_its_scratch_with_either_mount(monkeypatch, tmp_path):
    """Both ways of mounting the unprivileged level's scratch (bubblewrap's --size tmpfs; or confine_prefix's
    tmpfs with an inode cap, in a user namespace where this user is root, then the child back at this user's
    uid) end with the root and /dev remounted read-only, after every mount point is made."""
    from graders import sandbox

    caps = _caps({"--unshare-user", "--tmpfs", "--perms", "--size", "--disable-userns"}, nproc_per_userns=True)
    monkeypatch.setattr(sandbox, "capabilities", lambda: caps)
    own = sandbox.bwrap_command({}, None, None, program=["-c", "pass"], userns=sandbox.UserNamespace(64 << 20, 16))[0]
    bound = sandbox.bwrap_command({}, None, tmp_path, program=["-c", "pass"],
                                  userns=sandbox.UserNamespace(64 << 20, 16, mounted=True))[0]
    for argv in (own, bound):
        ops = [i for i, a in enumerate(argv) if a in ("--dir", "--tmpfs", "--bind", "--ro-bind", "--symlink")]
        ro = [argv[i + 1] for i, a in enumerate(argv) if a == "--remount-ro"]
        assert "/" in ro and "/dev" in ro and argv.index("--remount-ro", max(ops)) > max(ops), argv
    assert own.count("--size") == 2 and "--uid" not in own
    assert "--size" not in bound and bound[bound.index("--uid") + 1] == str(os.getuid())
    assert [bound[i + 2] for i, a in enumerate(bound) if a == "--bind"] == ["/work", "/tmp"]
    prefix = sandbox.confine_prefix(tmp_path, [], 64, 4096, user_namespace=True)
    assert prefix[:3] == ["unshare", "--user", "--map-root-user"] and "nr_inodes" in sandbox.CONFINE_SCRIPT


def test_the_sandbox_notice_is_said_once_per_run_and_not_by_the_processes_it_starts(monkeypatch, capsys):
    """A batch says its sandbox level once, before its progress bar: the notice marks the environment, so the
    worker processes it starts (which inherit it) stay quiet; said twice in one process, it is said once."""
    caps = sandbox.Capabilities(bwrap="/usr/bin/bwrap", setpriv=None, prlimit="/usr/bin/prlimit", is_root=False,
                                userns=True)
    assert caps.level == "unprivileged"
    monkeypatch.setattr(sandbox, "capabilities", lambda: caps)
    monkeypatch.setattr(sandbox, "_warned", threading.Event())
    monkeypatch.delenv(sandbox.NOTICE_SAID_ENV, raising=False)
    sandbox.warn_if_weak()
    sandbox.warn_if_weak()
    assert capsys.readouterr().err.count("UNPRIVILEGED SANDBOX") == 1
    assert os.environ.get(sandbox.NOTICE_SAID_ENV) == "1"
    monkeypatch.setattr(sandbox, "_warned", threading.Event())  # a worker process: fresh module state, the env
    sandbox.warn_if_weak()
    assert "SANDBOX" not in capsys.readouterr().err
