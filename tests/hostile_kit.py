"""Building and grading hostile submissions (shared by test_hostile, test_malformed, test_child_faults,
test_determinism).

An attack lives in tests/files/hostile/<name>.py as a snippet appended to a base file
(a problem's valid or buggy case, the reference or the blank template). A snippet defines
`_hx_attack()`; `compose` appends it and arms it at import time or inside one
function the probes call, so the same base without the snippet is the baseline.
Placeholders `@@NAME@@` in a snippet are filled by `compose` (a per-test token,
the repository root, the grader cache, a port, ...).

Processes and files an attack leaves are found by its token: it renames its
processes (`/proc/self/comm`) and names its files after it, so concurrent
grading elsewhere on the machine cannot confuse the checks.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

from cases import case_named
from graders import sandbox
from graders.grade import GradeOptions, grade_submission
from graders.results import GradeResult, ProblemResult

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
TEMPLATE = ROOT / "student_template"
HOSTILE = ROOT / "tests" / "files" / "hostile"

FILES = {
    "autodiff": "minitorch/autodiff.py",
    "ops": "minitorch/tensor_functions.py",
    "network": "project/run_sentiment.py",
    "training": "project/run_sentiment.py",
}
#: child limits for attacks that hang (a hung probe costs this many seconds, not the problem's 20-60)
FAST = {"probe_seconds": 3, "wall_seconds": 20}
#: where an attack's call-time trigger goes, per student file: code that wraps one probed function
HOOKS = {
    "minitorch/tensor_functions.py": (
        "_hx_neg_forward = Neg.forward\n"
        "def _hx_forward(ctx, t1):\n"
        "    _hx_once()\n"
        "    return _hx_neg_forward(ctx, t1)\n"
        "Neg.forward = staticmethod(_hx_forward)\n"
    ),
    "project/run_sentiment.py": (
        "_hx_linear_forward = Linear.forward\n"
        "def _hx_forward(self, x):\n"
        "    _hx_once()\n"
        "    return _hx_linear_forward(self, x)\n"
        "Linear.forward = _hx_forward\n"
    ),
    "minitorch/autodiff.py": (
        "_hx_backpropagate = backpropagate\n"
        "def backpropagate(variable, deriv):\n"
        "    _hx_once()\n"
        "    return _hx_backpropagate(variable, deriv)\n"
    ),
}
#: the ops tests a call-time trigger in Neg.forward can cost
NEG_TESTS = {"neg_forward", "neg_backward"}


def strong() -> bool:
    return sandbox.capabilities().strong


def token() -> str:
    """A name fragment unique to one attack (12 characters: fits /proc/<pid>/comm)."""
    return "hx" + secrets.token_hex(5)


def source(base: str, rel: str) -> str:
    """The text of `rel` in a base: "reference", "template" or a problem's case "<problem>/<kind>/<name>"
    (tests/cases.py: a delta comes appended to the reference's file)."""
    if base in ("reference", "template"):
        return ({"reference": REFERENCE, "template": TEMPLATE}[base] / rel).read_text(encoding="utf-8")
    return case_named(base).files()[rel].decode("utf-8")


def delta(case_id: str) -> str:
    """A delta case's own definitions, to append to a file that already holds the reference's (several
    cases in one file: `source(first, rel) + delta(second)`)."""
    return case_named(case_id).delta()  # with EDITS: the definitions they change


def snippet(name: str, **subs: object) -> str:
    text = (HOSTILE / f"{name}.py").read_text(encoding="utf-8")
    for key, value in subs.items():
        text = text.replace(f"@@{key.upper()}@@", str(value))
    left = [part.split("@@")[0] for part in text.split("@@")[1::2]]
    assert not left, f"unfilled placeholders in {name}: {left}"
    return text


#: code making one probed function right only when `{fn}(value)` lets its value through unchanged
GATES = {
    "minitorch/tensor_functions.py": (
        "_hx_gate_neg = Neg.forward\n"
        "def _hx_gated(ctx, t1):\n"
        "    return {fn}(_hx_gate_neg(ctx, t1))\n"
        "Neg.forward = staticmethod(_hx_gated)\n"
    ),
    "project/run_sentiment.py": (
        "_hx_gate_linear = Linear.forward\n"
        "def _hx_gated(self, x):\n"
        "    return {fn}(_hx_gate_linear(self, x))\n"
        "Linear.forward = _hx_gated\n"
    ),
}


def compose(base_text: str, rel: str, attack: str, when: str = "import", gate: Optional[str] = None, **subs: object) -> str:
    """`base_text` with the attack snippet appended, armed at import or at call time; with `gate`, one probed
    function is right only if the snippet's function `gate` says the attack worked."""
    subs.setdefault("root", ROOT)
    subs.setdefault("cache", os.environ.get("AUTOGRADE_CACHE", ""))
    subs.setdefault("token", token())
    text = base_text + "\n\n# ---- hostile: " + attack + " ----\n" + snippet(attack, **subs)
    if gate:
        text += "\n" + GATES[rel].format(fn=gate)
    if when == "import":
        return text + "\n_hx_attack()\n"
    if when == "call":  # on the first call of the hooked function only
        once = "_HX_ARMED = [True]\ndef _hx_once():\n    if _HX_ARMED:\n        _HX_ARMED.pop()\n        _hx_attack()\n"
        return text + "\n" + once + HOOKS[rel]
    assert when == "none", when
    return text


def build(dest: Path, files: Dict[str, str], extra: Optional[Dict[str, str]] = None) -> Path:
    """A submission folder holding `files` (contract path -> text) and any `extra` files."""
    for rel, text in {**files, **(extra or {})}.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return dest


#: the offering grading every problem of the repository (problems/offerings.toml)
FULL_OFFERING = "minitorch"


def with_reference(files: Dict[str, str], problems: Iterable[str]) -> Dict[str, str]:
    """`files` plus the reference file of every other problem (so those are graded normally)."""
    out = dict(files)
    for pid in problems:
        out.setdefault(FILES[pid], source("reference", FILES[pid]))
    return out


def grade(path: Path, problems: Sequence[str], limits: Optional[Dict[str, float]] = None, jobs: int = 2) -> GradeResult:
    # the full offering: it grades all four problems (the tensor Functions included)
    return grade_submission(path, GradeOptions(offering=FULL_OFFERING, problems=list(problems), jobs=jobs, limits=limits))


def problem(result: GradeResult, pid: str) -> ProblemResult:
    (found,) = [p for p in result.problems if p.id == pid]
    return found


def text_of(p: ProblemResult) -> str:
    """Everything a student reads about a problem: errors, notes and every test message."""
    return "\n".join([*p.errors, *p.notes, *(t.message for t in p.tests)])


def scores(p: ProblemResult) -> Dict[str, float]:
    return {t.id: t.score for t in p.tests}


def assert_normal(result: GradeResult, pid: str) -> None:
    """A problem whose files are the reference's got full marks, with no fault."""
    p = problem(result, pid)
    failed = [(t.id, t.message) for t in p.tests if not t.passed]
    assert p.fault is None and not failed and p.score == p.max_score, (pid, p.fault, failed)


# ----------------------------------------------------------------- leftovers


def _comm(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _uid(pid: str) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def pids() -> List[str]:
    return [p for p in os.listdir("/proc") if p.isdigit()]


def marked_processes(tok: str) -> List[str]:
    """Processes an attack renamed with its token (alive, not zombies)."""
    found = []
    for pid in pids():
        if tok in _comm(pid) or tok in _cmdline(pid):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                found.append(pid)
    return found


def sandbox_uid_processes() -> List[str]:
    """Processes running as a sandbox slot uid (61000-61063), whoever started them."""
    low, high = sandbox.UID_BASE, sandbox.UID_BASE + sandbox.UID_SLOTS
    return [p for p in pids() if (_uid(p) or 0) in range(low, high)]


def wait_gone(tok: str, seconds: float = 5.0) -> List[str]:
    """The attack's processes still alive after `seconds` (killed by the namespace, they go at once)."""
    deadline = time.monotonic() + seconds
    while True:
        left = marked_processes(tok)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def reap(found: Iterable[str]) -> None:
    """Kill survivors found by token (the test's own attack processes, by pid) so a failure leaves nothing."""
    for pid in found:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError, ValueError):
            pass


def files_named(tok: str, roots: Iterable[Path]) -> List[str]:
    """Files or directories whose name contains the token, under `roots`."""
    return files_named_each([tok], roots)[tok]


def files_named_each(tokens: Sequence[str], roots: Iterable[Path]) -> Dict[str, List[str]]:
    """`files_named` for several tokens in one walk of `roots` (a walk of /tmp and home takes seconds):
    {token: files or directories whose name contains it}."""
    found: Dict[str, List[str]] = {tok: [] for tok in tokens}
    if not tokens:
        return found
    any_token = re.compile("|".join(map(re.escape, tokens)))
    for root in roots:
        if not Path(root).exists():
            continue
        for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
            for name in dirnames + filenames:
                if any_token.search(name):
                    for tok in tokens:
                        if tok in name:
                            found[tok].append(os.path.join(dirpath, name))
    return found


def leftover_roots() -> List[Path]:
    """Where a child could leave files on the host: temp dirs, shared memory, the cache, home."""
    roots = [Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path(os.environ.get("AUTOGRADE_CACHE", "/nonexistent"))]
    cache_home = Path.home() / ".cache" / "minitorch-autograder"
    return roots + [cache_home] if cache_home.exists() else roots


def walk_files(roots: Iterable[Path], name: Optional[str] = None):
    """Every regular file (named `name`, if given) under `roots` (errors such as folders vanishing meanwhile are
    ignored). The name is compared before a file is looked at: a walk of home for one name stats only those."""
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in ("__pycache__", ".pytest_cache", ".git")]
            for filename in filenames:
                if name is not None and filename != name:
                    continue
                path = Path(dirpath) / filename
                if path.is_file() and not path.is_symlink():
                    yield path


def files_containing(tok: str, roots: Iterable[Path], name: Optional[str] = None, limit: int = 8 << 20) -> List[Path]:
    """Files (named `name`, if given) under `roots` whose first `limit` bytes contain the token."""
    found = []
    for path in walk_files(roots, name):
        try:
            with open(path, "rb") as f:
                if tok.encode() in f.read(limit):
                    found.append(path)
        except OSError:
            pass
    return found


def tree_digest(root: Path) -> Dict[str, tuple]:
    """{relative path: (sha256, mode)} of every regular file under `root` (skipping caches)."""
    import hashlib

    out = {}
    for path in walk_files([Path(root)]):
        try:
            out[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
        except OSError:
            pass
    return out


def build_case(dest: Path, case_id: str) -> Path:
    """The submission of a problem's case "<problem>/<kind>/<name>" (tests/cases.py), written under `dest`."""
    return case_named(case_id).build(dest)


@dataclass
class NetworkAttack:
    """What `network_attack` saw: connections the listener accepted before grading (its own check) and
    after, and the network problem graded with the attack and without it."""

    accepted_before: int
    accepted_after: int
    attacked: ProblemResult
    baseline: ProblemResult


def network_attack(dest: Path, host_ip: str = "127.0.0.1") -> NetworkAttack:
    """A TCP listener on every address of this host; the `sockets` attack connects to it (localhost and
    `host_ip`), resolves names and opens a URL, and is right only if any of that works. The listener's own
    check connection is the one accepted before grading."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", 0))
    server.listen(16)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, addr = server.accept()
            except OSError:
                continue
            accepted.append(addr)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass  # the listener works outside the sandbox
        time.sleep(0.3)
        before = len(accepted)
        net = FILES["network"]
        text = compose(source("reference", net), net, "sockets", gate="_hx_right_only_if_connected",
                       token=token(), port=port, hostip=host_ip)
        attacked = grade(build(dest / "attack", {net: text}), ["network"], FAST)
        baseline = grade(build(dest / "base", {net: text.replace("\n_hx_attack()\n", "\n")}), ["network"])
        time.sleep(0.3)
    finally:
        stop.set()
        thread.join(2)
        server.close()
    return NetworkAttack(before, len(accepted), problem(attacked, "network"), problem(baseline, "network"))
