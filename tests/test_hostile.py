"""Adversarial submissions (issue 6): whatever the student's code does, it cannot raise its own score,
touch another problem or submission, reach hidden material, or leave anything behind.

Attacks are snippets in tests/files/hostile/, appended to a base file (see hostile_kit). Rules:

* an attack that tries to fake success sits on a known-buggy (or blank) base and must score exactly
  what the same base scores without it;
* an attack that crashes, exits or hangs sits on the reference; its problem scores no more than the
  reference, the message says what happened, and the other problem of the submission is graded normally;
* afterwards no process the attack started is alive and no file it wrote is left anywhere.

Attacks that only the strong sandbox (bubblewrap view, private /tmp, no network, unprivileged uid) can
stop skip when it is unavailable. Known holes are strict xfails, so fixing one turns the suite red
until the mark is removed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import hostile_kit as k

AD, OPS, NET = k.FILES["autodiff"], k.FILES["ops"], k.FILES["network"]
STRONG = k.strong()
needs_strong = pytest.mark.skipif(
    not STRONG,
    reason="needs the strong sandbox (root + bubblewrap): in the weak sandbox the child runs with the grader's "
    "uid and filesystem, so it can read, write and connect wherever the grader can",
)


def grade_all(jobs, cases):
    """Grade {name: (folder, problems, limits)} `jobs` at a time."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {name: pool.submit(k.grade, path, problems, limits) for name, (path, problems, limits) in cases.items()}
        return {name: f.result() for name, f in futures.items()}


# ------------------------------------------------- attacks that try to fake success


FORGE_VARIANTS = ["loaded", "fault", "start", "deep_value", "bad_result", "done", "orphan"]


@pytest.fixture(scope="module")
def faked(tmp_path_factory):
    """Attacks on known-buggy bases, and those bases alone: {name: (attacked result, base result)}."""
    tmp = tmp_path_factory.mktemp("faked")
    ops_bugs = k.source("ops/buggy/forward_bugs", OPS)
    dfs = k.source("autodiff/buggy/dfs_preorder", AD)
    liar = k.compose(dfs, AD, "liar_values")
    extras_user = k.compose(k.source("reference", NET), NET, "extras_user", gate="_hx_right_only_if_extras_ran")
    tok = k.token()
    extras_code = k.snippet("extras", token=tok)
    extras = {
        "conftest.py": extras_code, "sitecustomize.py": extras_code, "usercustomize.py": extras_code,
        "hx_boost.pth": "import sitecustomize\n", "minitorch/hx_boost.pth": "import sitecustomize\n",
        "pytest.ini": "[pytest]\naddopts = -p sitecustomize\n", "setup.cfg": "[tool:pytest]\naddopts = -p conftest\n",
        "minitorch/__init__.py": extras_code, "minitorch/conftest.py": extras_code, "minitorch/sitecustomize.py": extras_code,
        "project/__init__.py": extras_code, "project/conftest.py": extras_code, "tests/conftest.py": extras_code,
        "__init__.py": extras_code, "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-p conftest'\n",
    }
    cases = {
        "base:ops": (k.build(tmp / "base_ops", {OPS: ops_bugs}), ["ops"], None),
        "comparisons": (k.build(tmp / "comparisons", {OPS: k.compose(ops_bugs, OPS, "comparisons")}), ["ops"], None),
        "forge_output:import": (k.build(tmp / "fo_i", {OPS: k.compose(ops_bugs, OPS, "forge_output", out="/nonexistent")}), ["ops"], None),
        "forge_output:call": (k.build(tmp / "fo_c", {OPS: k.compose(ops_bugs, OPS, "forge_output", "call", out="/nonexistent")}), ["ops"], None),
        "flood": (k.build(tmp / "flood", {OPS: k.compose(ops_bugs, OPS, "flood_channel", "call")}), ["ops"], None),
        "flood:import": (k.build(tmp / "flood_i", {OPS: k.compose(ops_bugs, OPS, "flood_channel")}), ["ops"], None),
        "base:network": (k.build(tmp / "base_net", {NET: extras_user}), ["network"], None),
        "extras": (k.build(tmp / "extras", {NET: extras_user}, extras), ["network"], None),
    }
    for variant in FORGE_VARIANTS:
        text = k.compose(ops_bugs, OPS, "forge_nonce", "import" if variant == "orphan" else "call", forge=variant)
        cases[f"forge_nonce:{variant}"] = (k.build(tmp / f"fn_{variant}", {OPS: text}), ["ops"], None)
    results = grade_all(2, cases)
    results["base:autodiff"] = k.grade(k.build(tmp / "base_ad", {AD: liar.replace("ATTACK = True", "ATTACK = False")}), ["autodiff"])
    results["liar"] = k.grade(k.build(tmp / "liar", {AD: liar}), ["autodiff"])
    results["extras_token"] = tok
    return results


def _versus_base(faked, name, pid):
    return k.problem(faked[name], pid), k.problem(faked[f"base:{pid}"], pid)


@pytest.mark.parametrize("name", ["comparisons", "forge_output:import", "forge_output:call"]
                         + [f"forge_nonce:{v}" for v in FORGE_VARIANTS])
def test_fake_success_on_ops_changes_nothing(faked, name):
    """Forged events go nowhere: the student's process has no channel to the parent, only a pipe to the trusted
    process, which drops every event but a forbidden library's use (noted) and skips junk (noted); a forged
    'done' ends nothing."""
    attacked, base = _versus_base(faked, name, "ops")
    assert 0 < base.score < base.max_score  # a base with something to gain
    assert attacked.fault is None, attacked.fault
    assert k.scores(attacked) == k.scores(base), k.text_of(attacked)


def test_code_that_reaches_the_channel_is_listed_for_review_and_its_base_is_not(faked):
    """Forged lines with the run's own nonce are only as good as the probes' data, which runs in the same
    process: the screen puts every submission that reaches for the channel before a TA (never changing a
    score), and leaves the plain buggy base alone."""
    assert faked["base:ops"].review == []
    for name in ["forge_output:import", "forge_output:call", "flood"] + [f"forge_nonce:{v}" for v in FORGE_VARIANTS]:
        review = " ".join(faked[name].review)
        assert "minitorch/tensor_functions.py, line" in review, (name, review)
    assert "import gc" in " ".join(faked["forge_nonce:done"].review)
    assert "uses raw operating-system handles" in " ".join(faked["forge_output:call"].review)


def test_forged_output_is_reported_as_ignored(faked):
    """Junk written on every descriptor reaches the trusted process's pipe: skipped up to the next frame, noted."""
    for name in ("forge_output:import", "forge_output:call"):
        notes = " ".join(k.problem(faked[name], "ops").notes)
        assert "ignored: bytes written on the grader's pipe that are no message" in notes, notes


def test_a_mark_or_result_naming_no_probe_while_none_runs_is_ignored(faked):
    """Sent at import, before any probe started (through the student's process's pipe, the only way out it has):
    a timing mark and a result are events that process may not send: noted and dropped by the trusted process."""
    notes = " ".join(k.problem(faked["forge_nonce:orphan"], "ops").notes)
    assert "ignored: an event 'mark' from the student's process" in notes, notes
    assert "ignored: an event 'result' from the student's process" in notes, notes


def test_liar_values_change_nothing(faked):
    """accumulate_derivative fed floats whose ==, -, abs, comparisons and __array__ lie: the judge never asks them."""
    attacked, base = _versus_base(faked, "liar", "autodiff")
    assert 0 < base.score < base.max_score
    assert attacked.fault is None
    assert k.scores(attacked) == k.scores(base), k.text_of(attacked)


def test_result_channel_flood_is_cut_quickly(faked):
    """100 MiB without a newline on every descriptor: the student's process reaches only the trusted process's
    pipe, which skips bytes that are no frame in linear time up to 64 MiB (remote.MAX_SKIPPED), then stops the
    student's process for breaking the protocol and says so (the parent's own caps on its channel are tested at
    the seam: test_hostile_limits)."""
    attacked, base = _versus_base(faked, "flood", "ops")
    assert attacked.fault is None
    assert attacked.score <= base.score
    text = k.text_of(attacked)
    assert "broke the grader's protocol: more than 64 MiB written on the grader's pipe that are no message" in text
    assert attacked.seconds < 15, attacked.seconds  # not the wall-clock limit (60 s): no quadratic re-scanning


def test_a_flood_at_import_is_a_protocol_break_not_a_kill_from_outside(faked):
    """The same flood while the file is imported: the trusted process stops the student's process and ends itself
    as a SIGKILL would; it says why first, so the parent neither takes the end for a kill from outside the grader
    (two runs again and a control run) nor calls it a memory or CPU limit."""
    attacked = k.problem(faked["flood:import"], "ops")
    assert attacked.fault is None
    assert attacked.score == 0
    text = k.text_of(attacked)
    assert "broke the grader's protocol: more than 64 MiB written on the grader's pipe that are no message" in text
    for wrong in ("from outside", "run twice more", "three times", "memory or CPU limit"):
        assert wrong not in text, (wrong, text)


def test_shipped_conftest_sitecustomize_pth_pytest_ini_have_no_effect(faked):
    attacked, base = _versus_base(faked, "extras", "network")
    assert base.score < base.max_score  # the gate: right only if a shipped extra ran
    assert k.scores(attacked) == k.scores(base)
    assert not k.files_named(faked["extras_token"], k.leftover_roots())


# ------------------------------------------------- attacks that crash, exit, hang or hog


CRASHES = [
    # (attack, when, tighter limits, what the message must say)
    ("exit_sys", "import", None, "SystemExit"),
    ("exit_sys", "call", None, "SystemExit"),
    ("exit_os", "import", None, "exited early with code 0"),
    ("exit_os", "call", None, "exited early with code 0"),
    ("keyboard_interrupt", "import", None, "KeyboardInterrupt"),
    ("keyboard_interrupt", "call", None, "KeyboardInterrupt"),
    ("base_exception", "import", None, "_HxEscape"),
    ("base_exception", "call", None, "_HxEscape"),
    ("spin", "call", k.FAST, "timed out"),
    ("sleep", "call", k.FAST, "timed out"),
    ("spin", "import", {"probe_seconds": 3, "wall_seconds": 5}, "timed out"),
    ("sleep", "import", {"probe_seconds": 3, "wall_seconds": 5}, "timed out"),
    # touching the memory takes a while under load: the problem's 1.5 GiB took 8 s of CPU beside the suite, 512 MiB a third
    ("memory", "call", {"probe_seconds": 12, "wall_seconds": 30, "memory_mib": 512}, "MemoryError"),
    ("detach", "import", k.FAST, None),
    ("detach", "call", k.FAST, None),
    ("forkbomb", "import", k.FAST, None),
    ("forkbomb", "call", k.FAST, None),
    ("files", "import", k.FAST, None),
    ("files", "call", k.FAST, None),
]
CRASH_IDS = [f"{a}@{w}" for a, w, _, _ in CRASHES]
#: detached daemons outlive a process-group kill; only a PID namespace (strong sandbox) takes them down
WEAK_SURVIVORS = {"detach@import", "detach@call"}


@pytest.fixture(scope="module")
def crashed(tmp_path_factory):
    """Every crash attack graded (three at a time): {id: (result, token)}; the reference for the baseline."""
    tmp = tmp_path_factory.mktemp("crashed")
    ref_ops = k.source("reference", OPS)
    cases, tokens = {}, {}
    for (attack, when, limits, _), cid in zip(CRASHES, CRASH_IDS):
        tokens[cid] = k.token()
        files = k.with_reference({OPS: k.compose(ref_ops, OPS, attack, when, token=tokens[cid])}, ["network"])
        cases[cid] = (k.build(tmp / cid.replace("@", "_"), files), ["ops", "network"], limits)
    results = grade_all(3, cases)
    survivors = {cid: k.wait_gone(tokens[cid], 3.0) for cid in CRASH_IDS}
    for left in survivors.values():
        k.reap(left)  # a failing run must not leave its daemons behind
    named = k.files_named_each(list(tokens.values()), k.leftover_roots())  # one walk for every attack's token
    leftovers = {cid: named[tokens[cid]] for cid in CRASH_IDS}
    return {cid: (results[cid], survivors[cid], leftovers[cid]) for cid in CRASH_IDS}


@pytest.mark.parametrize("attack,when,limits,says", CRASHES, ids=CRASH_IDS)
def test_crash_costs_only_its_own_probes(crashed, attack, when, limits, says):
    result, _, _ = crashed[f"{attack}@{when}"]
    ops = k.problem(result, "ops")
    assert ops.fault is None, ops.fault
    assert ops.score <= ops.max_score
    if says is None:  # the attack does its damage on the side and lets the probe finish
        assert ops.score == ops.max_score, k.text_of(ops)
    else:
        assert says in k.text_of(ops), k.text_of(ops)
        if when == "call":  # armed in Neg.forward: only Neg's tests may fail
            lost = {t.id for t in ops.tests if not t.passed}
            assert lost and lost <= k.NEG_TESTS, lost
        else:
            assert ops.score == 0
    k.assert_normal(result, "network")
    assert not result.errors


@pytest.mark.parametrize("cid", CRASH_IDS)
def test_nothing_survives_the_attack(crashed, cid, request):
    if cid in WEAK_SURVIVORS and not STRONG:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="weak sandbox: setsid + double fork escapes the process-group kill (no PID namespace)"))
    _, survivors, leftovers = crashed[cid]
    assert not survivors, f"processes left by {cid}: {survivors}"
    assert not leftovers, f"files left by {cid}: {leftovers[:5]}"


def _start_seconds_ago(pid: str) -> float:
    with open(f"/proc/{pid}/stat") as f:
        start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


def test_no_sandbox_uid_process_outlives_grading(crashed):
    """Whoever started it, no process of a sandbox uid lives longer than any child may (the longest wall limit)."""
    old = []
    for pid in k.sandbox_uid_processes():
        try:
            if _start_seconds_ago(pid) > 200:
                old.append((pid, k._cmdline(pid)))
        except OSError:
            continue
    assert not old


# ------------------------------------------------- using an autodiff library


def ops_offering() -> str:
    """The offering whose problems include `ops` (the course's offerings give tensor_functions.py complete)."""
    from graders.offering import load_offerings

    return next(oid for oid, o in load_offerings()[1].items() if "ops" in o.points)


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    """Importing a forbidden library gives an inert stand-in (the course's starter imports torch at module level);
    USING it in graded code, at import or at call time, caught or not, is the violation."""
    from graders.grade import GradeOptions, grade_submission
    from graders.spec import load_problems
    from graders.template import strip_file

    tmp = tmp_path_factory.mktemp("policy")
    ref_ops = k.source("reference", OPS)
    stub_ops = strip_file(k.REFERENCE / OPS, OPS, load_problems(), only=["ops"])  # blank for ops, whatever the offering
    assert "NotImplementedError" in stub_ops
    cases = {
        "static": (k.build(tmp / "static", k.with_reference({OPS: k.compose(ref_ops, OPS, "policy_static")}, ["network"])),
                   ["ops", "network"]),
        "dynamic:import": (k.build(tmp / "dyn_i", {OPS: k.compose(ref_ops, OPS, "policy_dynamic")}), ["ops"]),
        "dynamic:call": (k.build(tmp / "dyn_c", {OPS: k.compose(ref_ops, OPS, "policy_dynamic", "call")}), ["ops"]),
        "import_only": (k.build(tmp / "imp", k.with_reference({OPS: k.compose(ref_ops, OPS, "policy_import_only")},
                                                                ["network"])), ["ops", "network"]),
        "unhook": (k.build(tmp / "unhook", {OPS: k.compose(stub_ops, OPS, "policy_unhook")}), ["ops"]),
        "reload": (k.build(tmp / "reload", {OPS: k.compose(stub_ops, OPS, "policy_reload")}), ["ops"]),
        "base:stub": (k.build(tmp / "stub", {OPS: stub_ops}), ["ops"]),
    }
    offering = ops_offering()
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(grade_submission, path, GradeOptions(offering=offering, problems=problems))
                   for name, (path, problems) in cases.items()}
        return {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", ["static", "dynamic:import", "dynamic:call"])
def test_using_an_autodiff_library_is_a_policy_violation(policy, name):
    ops = k.problem(policy[name], "ops")
    assert ops.score == 0
    assert all("policy violation" in t.message for t in ops.tests), k.text_of(ops)
    assert "torch" in k.text_of(ops)
    if name == "static":
        assert "line" in k.text_of(ops)  # the report names the line of the use
        k.assert_normal(policy[name], "network")


def test_importing_an_autodiff_library_without_using_it_costs_nothing(policy):
    for pid in ("ops", "network"):
        p = k.problem(policy["import_only"], pid)
        assert p.fault is None and all(t.passed for t in p.tests), (pid, k.text_of(p))
        assert abs(p.score - p.max_score) < 1e-3, (pid, p.score, p.max_score)
    assert "policy" not in k.text_of(k.problem(policy["import_only"], "ops"))


def test_removing_the_import_blocker_gains_nothing(policy, request):
    if not STRONG:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="weak sandbox: torch is installed in the grader's Python; with the meta-path blocker "
            "removed, a computed-name import succeeds unseen"))
    attacked, stub = k.problem(policy["unhook"], "ops"), k.problem(policy["base:stub"], "ops")
    assert k.scores(attacked) == k.scores(stub)


def test_loading_torch_past_the_stand_in_gains_nothing(policy):
    """Dropping the stand-in from sys.modules and executing what the path finder finds: in the strong sandbox there
    is nothing to find; in the weak one torch's own submodules still import as stand-ins, so it cannot start."""
    attacked, stub = k.problem(policy["reload"], "ops"), k.problem(policy["base:stub"], "ops")
    gained = {t: (a, k.scores(stub)[t]) for t, a in k.scores(attacked).items() if a > k.scores(stub)[t]}
    assert not gained, (gained, k.text_of(attacked))


def test_a_venv_grader_hides_its_base_interpreters_site_packages(monkeypatch, tmp_path):
    """Graded from a venv, the child runs the base interpreter with the venv's numpy bound at /sandbox-site;
    the base interpreter's own site-packages (where torch may be installed globally) is inside the bound
    prefix and must be covered by an empty tmpfs (a fresh venv on this machine imported torch without it)."""
    from graders import sandbox

    prefix = tmp_path / "base"
    base_site = prefix / "lib" / "python3" / "site-packages"
    (base_site / "torch").mkdir(parents=True)
    venv_site = tmp_path / "venv" / "site-packages"
    (venv_site / "numpy").mkdir(parents=True)
    monkeypatch.setattr(sandbox, "runtime", lambda: (prefix, prefix / "lib" / "python3", venv_site))
    monkeypatch.setattr(sandbox, "base_site_packages", lambda: [base_site])
    monkeypatch.setattr(sandbox, "capabilities", lambda: sandbox.Capabilities("bwrap", "setpriv", "prlimit", True))
    args, extra = sandbox.bwrap_command({}, 61000, tmp_path / "scratch")
    pairs = list(zip(args, args[1:]))
    assert ("--tmpfs", str(base_site)) in pairs and ("--remount-ro", str(base_site)) in pairs
    assert ("--ro-bind", str(prefix)) in pairs and args.index(str(base_site)) > args.index(str(prefix))
    assert extra == ["/sandbox-site"] and ("--ro-bind", str(venv_site / "numpy")) in pairs


# ------------------------------------------------- strong sandbox: disk, network, relays, tampering


@needs_strong
def test_disk_search_finds_no_solution_labels_judges_or_cache(tmp_path):
    """The attack walks the whole visible disk (and tries the repository's and the cache's real paths) for the
    reference solution, a working topological_sort, heldout.tsv, judges, problem specs, cached reference runs or
    a gradebook; finding anything switches on a working autodiff. It must find nothing: the blank's score."""
    text = k.compose(k.source("template", AD), AD, "search_disk")
    assert "@@" not in text
    attacked = k.grade(k.build(tmp_path / "attack", {AD: text}), ["autodiff"], {"wall_seconds": 30})
    stub = k.grade(k.build(tmp_path / "stub", {AD: text.replace("ATTACK = True", "ATTACK = False")}), ["autodiff"])
    a, s = k.problem(attacked, "autodiff"), k.problem(stub, "autodiff")
    assert s.score == 0
    assert k.scores(a) == k.scores(s), k.text_of(a)


@needs_strong
def test_the_hidden_tests_source_cannot_be_read_by_graded_code(tmp_path):
    """The probes are sent to the child as text on stdin and compiled before graded code runs: no probe file is
    on the sandbox's disk and no source line is kept. An attack that walks the disk for probe registrations and
    asks inspect/linecache for every probe module's source, and raises what it finds from topological_sort (into
    the messages shown before the due date), finds nothing: full marks, and no line of the probes in any message."""
    text = k.compose(k.source("reference", AD), AD, "probe_source_leak", when="call")
    p = k.problem(k.grade(k.build(tmp_path / "attack", {AD: text}), ["autodiff"]), "autodiff")
    probe_lines = {line.strip() for path in (k.ROOT / "problems" / "autodiff" / "probes").glob("*.py")
                   for line in path.read_text(encoding="utf-8").splitlines() if len(line.strip()) >= 30}
    shown = "\n".join(t.message for t in p.tests)
    assert not [line for line in probe_lines if line in shown], k.text_of(p)
    assert p.score == p.max_score, k.text_of(p)


@needs_strong
def test_no_relay_between_problems_or_submissions(tmp_path):
    """Each file leaves a marker in every writable place it knows and is right only if it finds one. Graded
    twice (two submissions, one after the other; inside each, ops runs before network): always the baseline."""
    tok = k.token()

    def files(alone):
        out = {}
        for rel in (OPS, NET):
            text = k.compose(k.source("reference", rel), rel, "relay", gate="_hx_right_only_if_relayed", token=tok)
            out[rel] = text.replace("_HX_ALONE = False", "_HX_ALONE = True") if alone else text
        return out

    baseline = k.grade(k.build(tmp_path / "alone", files(True)), ["ops", "network"], jobs=1)
    first = k.grade(k.build(tmp_path / "first", files(False)), ["ops", "network"], jobs=1)
    second = k.grade(k.build(tmp_path / "second", files(False)), ["ops", "network"], jobs=1)
    for pid in ("ops", "network"):
        base = k.scores(k.problem(baseline, pid))
        assert min(base.values()) < 1  # the gate costs points unless a marker is relayed
        assert k.scores(k.problem(first, pid)) == base, pid
        assert k.scores(k.problem(second, pid)) == base, pid
    assert not k.files_named(tok, k.leftover_roots())


@needs_strong
def test_no_network(tmp_path):
    """A TCP server of the test listens on every host address; the attack connects to it (localhost and the
    host's address), resolves names and opens a URL, and is right only if any of that works."""
    try:
        host_ip = socket.gethostbyname(socket.gethostname())
    except OSError:
        host_ip = "127.0.0.1"
    seen = k.network_attack(tmp_path, host_ip)
    assert seen.accepted_before == 1  # the listener works for the grader's own namespace
    assert seen.accepted_after == 1, f"{seen.accepted_after - 1} connection(s) from the sandbox"
    a, b = seen.attacked, seen.baseline
    assert b.score < b.max_score
    assert k.scores(a) == k.scores(b)


@needs_strong
def test_grader_files_cache_and_gradebook_cannot_be_changed(tmp_path):
    tok = k.token()
    gradebook = tmp_path / "gradebook.sqlite"
    gradebook.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    cache = Path(os.environ["AUTOGRADE_CACHE"])
    k.grade(k.build(tmp_path / "warm", {NET: k.source("reference", NET)}), ["network"])  # the cache exists first
    sources = [k.ROOT / "graders", k.ROOT / "problems", k.ROOT / "reference"]
    cache_before = k.tree_digest(cache)  # this session's own cache: nothing else writes it meanwhile
    book_before = gradebook.read_bytes()
    text = k.compose(k.source("reference", NET), NET, "tamper", token=tok, gradebook=gradebook)
    result = k.grade(k.build(tmp_path / "attack", {NET: text}), ["network"], k.FAST)
    k.assert_normal(result, "network")
    cache_after = k.tree_digest(cache)
    # work/ holds the run folders of gradings under way (other workers' too), each removed when its run ends
    assert not [rel for rel, was in cache_before.items() if cache_after.get(rel) != was and "/work/" not in f"/{rel}"]
    assert gradebook.read_bytes() == book_before
    # the repository may be edited by people meanwhile: look for the attack's mark, not for any change
    assert not k.files_containing(tok, sources + [cache])
    assert not k.files_named(tok, sources + [cache] + k.leftover_roots())


@needs_strong
def test_fake_results_everywhere_including_the_out_dir(tmp_path):
    """Run through the CLI: the attack prints Gradescope JSON, forges event lines on every descriptor and writes
    results.json into every directory it can reach, including the --out directory of any command line it sees."""
    out = tmp_path / "out"
    tok = k.token()
    text = k.compose(k.source("network/buggy/no_relu", NET), NET, "forge_output", token=tok, out=out)
    sub = k.build(tmp_path / "sub", {NET: text})
    proc = subprocess.run(
        [sys.executable, "-m", "graders", "grade", str(sub), "--out", str(out), "--problems", "network",
         "--offering", k.FULL_OFFERING],
        cwd=k.ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(k.ROOT)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "1000" not in proc.stdout and "All tests passed" not in proc.stdout
    doc = json.loads((out / "results.json").read_text())
    assert doc.get("extra_data", {}).get("forged") is None
    baseline = k.problem(k.grade(k.build_case(tmp_path / "base", "network/buggy/no_relu"), ["network"]), "network")
    assert doc["score"] == baseline.score < baseline.max_score
    roots = [tmp_path, Path("/tmp"), Path.home(), k.ROOT, Path(os.environ["AUTOGRADE_CACHE"])]
    assert not k.files_containing(tok, roots, name="results.json")


# ------------------------------------------------- holes found by this suite, now closed


# the patched clock (time.perf_counter & co.) on the slow timing base: test_hostile_probes.py, beside that base


def test_patched_numpy_does_not_pass_the_dropout_flags(tmp_path):
    buggy = k.source("network/buggy/dropout_always", NET)
    attacked = k.problem(k.grade(k.build(tmp_path / "a", {NET: k.compose(buggy, NET, "numpy_std")}), ["network"]), "network")
    base = k.problem(k.grade(k.build(tmp_path / "b", {NET: buggy}), ["network"]), "network")
    assert base.score < base.max_score
    assert attacked.score <= base.score


def test_unreadable_student_values_are_not_grader_faults(tmp_path):
    valid = k.source("autodiff/valid/kahn", AD)
    # at the first call (the probes package is imported by then)
    attacked = k.problem(k.grade(k.build(tmp_path / "a", {AD: k.compose(valid, AD, "judge_crash", when="call")}),
                                 ["autodiff"]), "autodiff")
    assert attacked.fault is None, attacked.fault.splitlines()[0]
    assert attacked.score < attacked.max_score
    # the counters live in a helper module of autodiff's probes package: sealed like probekit
    assert "probes.graphs.Counter.as_dict" in k.text_of(attacked), k.text_of(attacked)


def test_a_module_planted_under_a_probe_helpers_name_is_not_imported(tmp_path):
    """Graded code runs before the probes are imported: a module it planted as `probes.graphs` is dropped, the
    probes import their own helpers, and a valid solution keeps full marks (no fault, no missing probe)."""
    valid = k.source("autodiff/valid/kahn", AD)
    attacked = k.problem(k.grade(k.build(tmp_path / "a", {AD: k.compose(valid, AD, "probe_module_preload")}),
                                 ["autodiff"]), "autodiff")
    assert attacked.fault is None, attacked.fault.splitlines()[0]
    assert attacked.score == attacked.max_score, k.text_of(attacked)


def test_reference_solutions_of_other_problems_cannot_be_read_out(tmp_path):
    leak = (
        "def topological_sort(variable):\n"
        "    import minitorch.tensor_functions as tf\n"
        "    text = open(tf.__file__).read()\n"
        "    start = text.index('class Mul(Function)')\n"
        "    raise RuntimeError(text[start:start + 1500])\n\n\n"
        "def backpropagate(variable, deriv):\n"
        "    topological_sort(variable)\n"
    )
    result = k.grade(k.build(tmp_path / "leak", {AD: leak}), ["autodiff"])
    reference = k.source("reference", OPS)
    block = reference[reference.index("class Mul(Function)"):]
    solution = block[block.index("# BEGIN SOLUTION") + len("# BEGIN SOLUTION"):block.index("# END SOLUTION")].strip()
    assert solution and solution not in k.text_of(k.problem(result, "autodiff"))


@needs_strong
def test_the_students_process_cannot_reach_the_trusted_process(tmp_path):
    """Issue 21: the trusted process (the student's process's parent in the sandbox) is not traceable: its memory,
    maps, environment and descriptors under /proc are closed to the student's process, which holds no
    capability (the unprivileged level's twin of this check: test_unprivileged)."""
    files = {AD: k.compose(k.source("reference", AD), AD, "peek_trusted")}
    text = k.text_of(k.problem(k.grade(k.build(tmp_path / "peek", files), ["autodiff"]), "autodiff"))
    line = next((line for line in text.splitlines() if "PEEK" in line), text[:500])
    for what in ("mem", "maps", "environ", "fd"):
        assert f"{what}: PermissionError" in line, line
    assert "CapEff: 0000000000000000" in line, line
