"""Sandbox layers for the probe child (CONTRACT: untrusted code never touches the grader).

Strong mode (root with bubblewrap and setpriv), all layers at once:

- a bubblewrap view holding only what the child needs, read-only: the Python
  runtime with just numpy and typing_extensions (no torch or other autodiff
  library), the problem's stack (its solution blocks stubbed), the harness,
  the problem's probes, its inputs (no labels) and the one student file;
  private size-limited tmpfs for /work and /tmp; new PID, network, IPC and
  UTS namespaces; a cleared environment; it dies with its parent;
- an unprivileged uid per worker slot (setpriv), so RLIMIT_NPROC bites
  (it is ignored for root) and nothing outside the view is writable;
- rlimits set by the `prlimit` binary (not preexec_fn: safe in threaded parents).

Unprivileged mode (not root, where bubblewrap can create a user namespace, as on GitHub's
runners and most distributions): the same view, namespaces, seccomp filter and rlimits, in a new
user namespace instead of a per-slot uid. Its process-count limit is set inside that namespace,
where the kernel (5.14+) counts only the sandbox's own processes: a fork bomb stops at the limit
whatever else the user runs. The root of the view and `/dev` are remounted read-only (so `/dev/shm`,
`/sandbox` and `/sandbox/student` are too): the only writable places are `/work` and `/tmp`.
Those are mounted as in strong mode, by `confine_prefix` with a byte and an inode cap, in a user
and mount namespace of their own made by `unshare --user --map-root-user` (bubblewrap's `--tmpfs` has
a byte cap only); where that namespace cannot be made here (`Capabilities.userns_mounts`), they are
bubblewrap's tmpfs with `--size`, and the parent's watchdog kills the sandbox over the inode cap.
There is no control group: memory is limited per process by the rlimit, and for the whole tree by
the parent's watchdog (graders.probe: it sums the tree's resident memory and the scratch mounts'
bytes every `WATCH_SECONDS` and kills the whole sandbox over the problem's memory limit), so a tree
can briefly hold more than the limit, by what it allocates between two looks (measured: tests/
test_unprivileged.py). No per-slot uid.

Weak mode (no bubblewrap, or no user namespaces for a non-root user): rlimits only. Said once on
stderr; batch grading refuses it unless told `--allow-weak-sandbox`; results record the level.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, TextIO, Tuple

#: uids handed to sandboxed children, one per concurrently running child
UID_BASE = 61000
UID_SLOTS = 64
#: where slot locks live (shared by every grader process on the machine)
SLOT_DIR = Path(os.environ.get("AUTOGRADE_SLOT_DIR", "/tmp/autograde-slots"))
#: modules the sandboxed Python may import besides the standard library
ALLOWED_PACKAGES = ("numpy", "numpy.libs", "typing_extensions.py")
INSIDE = Path("/sandbox")
#: how every child interpreter starts: `-s` without the user's site-packages, and `-P` (Python 3.11+)
#: without the script's folder at the front of sys.path. Python 3.10 has no `-P`; there the harness's folder
#: stays first on sys.path, which changes nothing: it is the grader's own read-only folder, which the harness
#: puts on sys.path itself (graders.probe), and it holds only the harness's modules
PYTHON_FLAGS: Tuple[str, ...] = ("-s", "-P") if sys.version_info >= (3, 11) else ("-s",)


#: the sandbox levels, weakest first
LEVELS = ("weak", "unprivileged", "strong")


@dataclass(frozen=True)
class Capabilities:
    """What this machine offers for isolation."""

    bwrap: Optional[str]
    setpriv: Optional[str]
    prlimit: Optional[str]
    is_root: bool
    #: util-linux unshare: a private mount namespace for the scratch tmpfs with inode caps
    unshare: Optional[str] = "unshare"
    #: bubblewrap can create a user namespace as this (non-root) user
    userns: bool = False
    #: the options this bubblewrap knows (`--disable-userns` is 0.8+; older ones lack some)
    bwrap_options: frozenset = frozenset()
    #: the kernel counts RLIMIT_NPROC per user namespace (Linux 5.14+), so a limit set inside the
    #: unprivileged sandbox counts its own processes only
    nproc_per_userns: bool = False
    #: (not root) `unshare --user --map-root-user --mount` runs here and mounts a tmpfs with an inode cap
    #: in that namespace: the unprivileged sandbox's scratch mounts get the kernel's inode cap
    userns_mounts: bool = False

    @property
    def strong(self) -> bool:
        layers = (self.bwrap, self.setpriv, self.prlimit, self.unshare, self.is_root)
        return all(layers) and not _forced_weak()

    @property
    def level(self) -> str:
        """strong (root), unprivileged (bubblewrap in a user namespace) or weak (rlimits only)."""
        if self.strong:
            return "strong"
        if self.bwrap and self.prlimit and self.userns and not self.is_root and not _forced_weak():
            return "unprivileged"
        return "weak"

    def missing(self) -> List[str]:
        """The layers that are unavailable, in words."""
        gaps = []
        if not self.bwrap:
            gaps.append("bubblewrap (apt-get install bubblewrap): no private filesystem view, network or PID namespace")
        elif not self.is_root and not self.userns:
            gaps.append("user namespaces: bubblewrap cannot create one as this user (kernel.unprivileged_userns_clone, "
                        "or an AppArmor profile for bwrap)")
        if not self.is_root:
            gaps.append("root: no control group per sandbox (memory is limited per process, and for the whole "
                        "tree by the grader's watchdog, which looks every few milliseconds), no per-slot uid")
            if self.userns and not self.userns_mounts:
                gaps.append("unshare (util-linux) cannot mount a tmpfs in a user namespace here: the scratch "
                            "tmpfs's inode cap is kept by the grader's watchdog, not by the kernel")
            if self.userns and not self.nproc_per_userns:
                gaps.append("Linux 5.14+: this kernel counts the process limit over all of the user's processes, "
                            "so the sandbox sets none (a fork bomb runs until the CPU limit)")
            if self.userns and "--size" not in self.bwrap_options:
                gaps.append("bubblewrap 0.5+: no byte cap on the scratch tmpfs")
        if not self.setpriv:
            gaps.append("setpriv (util-linux): cannot drop to an unprivileged uid")
        if not self.prlimit:
            gaps.append("prlimit (util-linux): no CPU/memory/file limits")
        if not self.unshare:
            gaps.append("unshare (util-linux): no private scratch tmpfs with an inode cap")
        if _forced_weak():
            gaps.append("AUTOGRADE_WEAK_SANDBOX=1 is set")
        return gaps


def _forced_weak() -> bool:
    return os.environ.get("AUTOGRADE_WEAK_SANDBOX") == "1"


def _bwrap_makes_user_namespaces(bwrap: Optional[str]) -> bool:
    """Whether `bwrap --unshare-user` runs here as this user (one short trial run)."""
    if not bwrap:
        return False
    try:
        done = subprocess.run([bwrap, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc",
                               "--", "/bin/true"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _bwrap_options(bwrap: Optional[str]) -> frozenset:
    """The long options `bwrap --help` lists (empty when it does not run)."""
    if not bwrap:
        return frozenset()
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(word for word in (done.stdout + done.stderr).split() if word.startswith("--"))


def _userns_mounts_work(unshare: Optional[str]) -> bool:
    """Whether `confine_prefix(..., user_namespace=True)` runs here as this user (one short trial run)."""
    if not unshare:
        return False
    import tempfile

    with tempfile.TemporaryDirectory(prefix="autograde-probe-") as scratch:
        try:
            done = subprocess.run(confine_prefix(Path(scratch), [], 1, 16, user_namespace=True) + ["/bin/true"],
                                  capture_output=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return False
    return done.returncode == 0


def kernel_at_least(major: int, minor: int, release: Optional[str] = None) -> bool:
    """Whether the running kernel (or `release`, e.g. "6.18.0-1-amd64") is at least major.minor."""
    numbers = (release or os.uname().release).split("-")[0].split(".")
    try:
        return (int(numbers[0]), int(numbers[1])) >= (major, minor)
    except (ValueError, IndexError):
        return False


@lru_cache(maxsize=1)
def capabilities() -> Capabilities:
    bwrap, is_root = shutil.which("bwrap"), os.geteuid() == 0
    return Capabilities(
        bwrap=bwrap,
        setpriv=shutil.which("setpriv"),
        prlimit=shutil.which("prlimit"),
        is_root=is_root,
        unshare=shutil.which("unshare"),
        userns=not is_root and _bwrap_makes_user_namespaces(bwrap),
        bwrap_options=_bwrap_options(bwrap),
        nproc_per_userns=kernel_at_least(5, 14),
        userns_mounts=not is_root and _userns_mounts_work(shutil.which("unshare")),
    )


_warned = threading.Event()
#: set in the environment once the notice is said: the worker processes a batch starts inherit it and stay quiet
NOTICE_SAID_ENV = "AUTOGRADE_SANDBOX_NOTICE_SAID"


def warn_if_weak() -> None:
    """Say once per run, clearly, which layers are missing (local use continues): once in this process, and not
    again in the processes it starts (a batch says it before its progress bar; its workers inherit the mark)."""
    caps = capabilities()
    if caps.strong or _warned.is_set() or os.environ.get(NOTICE_SAID_ENV):
        return
    _warned.set()
    os.environ[NOTICE_SAID_ENV] = "1"
    lines = "\n  - ".join(caps.missing())
    what = "UNPRIVILEGED SANDBOX (user namespace)" if caps.level == "unprivileged" else "WEAK SANDBOX"
    print(f"autograde: {what}: grading continues with fewer isolation layers:\n  - {lines}", file=sys.stderr)


# ----------------------------------------------------------------- uid slots


class UidSlot:
    """An exclusive uid for one running child (file lock shared across grader processes)."""

    def __init__(self) -> None:
        self.uid: Optional[int] = None
        self._handle: Optional[TextIO] = None

    def __enter__(self) -> UidSlot:
        SLOT_DIR.mkdir(parents=True, exist_ok=True)
        while self.uid is None:
            for i in range(UID_SLOTS):
                handle = open(SLOT_DIR / f"{UID_BASE + i}.lock", "a+")
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    handle.close()
                    continue
                self.uid, self._handle = UID_BASE + i, handle
                break
            else:
                threading.Event().wait(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()


# ----------------------------------------------------------------- runtime view


@lru_cache(maxsize=1)
def runtime() -> Tuple[Path, Path, Path]:
    """(prefix of this Python, its stdlib dir, its site-packages dir)."""
    prefix = Path(sys.base_prefix).resolve()
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    import numpy  # the child's one third-party dependency

    site = Path(numpy.__file__).resolve().parent.parent
    return prefix, stdlib, site


def allowed_package_files(site: Path) -> List[str]:
    """What of `site` the sandbox shows (relative paths): ALLOWED_PACKAGES, and the bytecode of a single-module
    package (`__pycache__/typing_extensions.<tag>.pyc`: without it every child compiled the module again)."""
    shown = []
    for name in ALLOWED_PACKAGES:
        if not (site / name).exists():
            continue
        shown.append(name)
        if name.endswith(".py"):
            cached = Path(importlib.util.cache_from_source(str(site / name)))
            if cached.is_file():
                shown.append(cached.relative_to(site).as_posix())
    return shown


def base_site_packages() -> List[Path]:
    """The site-packages folders of the base interpreter (not of a venv built on it), existing ones."""
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})
    found = {Path(paths[key]).resolve() for key in ("purelib", "platlib")}
    return sorted(path for path in found if path.is_dir())


@dataclass
class View:
    """Paths as the child sees them, and the bwrap arguments that make them so."""

    args: List[str] = field(default_factory=list)
    made: set = field(default_factory=set)

    def parents(self, dest: Path) -> None:
        """Create `dest`'s missing parent directories world-traversable (bwrap's default is 0700)."""
        for parent in reversed(dest.parents):
            if str(parent) == "/" or parent in self.made:
                continue
            self.made.add(parent)
            if not Path(parent).exists() or not parent.is_relative_to("/usr"):
                self.args += ["--perms", "0755", "--dir", str(parent)]

    def ro(self, source: Path, dest: Path) -> None:
        self.parents(dest)
        self.args += ["--ro-bind", str(source), str(dest)]


@dataclass(frozen=True)
class UserNamespace:
    """The unprivileged level's own layers: scratch tmpfs of `tmp_bytes` each, and at most `processes`
    processes, counted inside the sandbox's user namespace (set there, so only its processes count).
    With `mounted`, the scratch tmpfs are already mounted (with their inode cap) by `confine_prefix(...,
    user_namespace=True)` in a user namespace where this user is root: bubblewrap binds them and runs
    the child as this user's uid and gid again."""

    tmp_bytes: int
    processes: int
    mounted: bool = False


def bwrap_command(
    mapping: Dict[str, Path], uid: Optional[int], scratch: Optional[Path], seccomp_fd: Optional[int] = None,
    program: Optional[List[str]] = None, userns: Optional[UserNamespace] = None,
) -> Tuple[List[str], List[str]]:
    """The bubblewrap command running `python PYTHON_FLAGS harness` inside the view, and the extra
    import paths the child needs.

    Strong level: `uid` is the slot's uid (setpriv switches to it), `scratch` holds the mount points
    `work/` and `tmp/` (see `confine_prefix`). Unprivileged level: `uid` is None and `userns` gives the
    new user namespace's tmpfs size and process limit; with `userns.mounted`, `scratch` holds the
    mount points as in the strong level (else bubblewrap mounts its own tmpfs). The root of the view
    and /dev are read-only there.
    `mapping` gives the host path of every inside path under /sandbox; `seccomp_fd`
    is a readable descriptor holding `seccomp_program()`; `program` replaces the
    harness's arguments (the benchmark runs `-c "import numpy"`).
    """
    python = os.path.realpath(sys.executable)
    extra: List[str] = []
    prefix, _stdlib, site = runtime()
    caps = capabilities()
    if caps.bwrap is None or caps.prlimit is None:  # both levels that call this have them (Capabilities.level)
        raise RuntimeError("no bubblewrap or no prlimit on this machine: nothing to build a sandbox command with")
    view = View()
    view.args += [caps.bwrap, "--die-with-parent", "--new-session",
                  "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                  "--clearenv", "--hostname", "sandbox"]
    if userns is not None:  # no nested user namespaces either (the seccomp filter refuses them too)
        view.args += ["--unshare-user"] + (["--disable-userns"] if "--disable-userns" in caps.bwrap_options else [])
        if userns.mounted:  # bubblewrap runs as root of confine_prefix's namespace: back to this user's ids
            view.args += ["--uid", str(os.getuid()), "--gid", str(os.getgid())]
    view.ro(Path("/usr"), Path("/usr"))
    for link in ("lib", "lib64", "bin", "sbin"):
        if Path("/" + link).is_symlink():
            view.args += ["--symlink", os.readlink("/" + link), "/" + link]
        elif Path("/" + link).is_dir():
            view.ro(Path("/" + link), Path("/" + link))
    view.args += ["--proc", "/proc", "--dev", "/dev"]
    # the interpreter and its standard library, with an empty site-packages holding only what probes need
    view.ro(prefix, prefix)
    if site.is_relative_to(prefix):
        view.args += ["--tmpfs", str(site)]
        for rel in allowed_package_files(site):
            view.ro(site / rel, site / rel)
        view.args += ["--remount-ro", str(site)]
    else:
        # a venv: the base interpreter's own site-packages (inside `prefix`) may hold torch; hide it
        for base_site in base_site_packages():
            if base_site.is_relative_to(prefix):
                view.args += ["--tmpfs", str(base_site), "--remount-ro", str(base_site)]
        view.args += ["--tmpfs", "/sandbox-site"]
        for rel in allowed_package_files(site):
            view.ro(site / rel, Path("/sandbox-site") / rel)
        view.args += ["--remount-ro", "/sandbox-site"]
        extra.append("/sandbox-site")
    for inside, host in mapping.items():
        view.ro(host, INSIDE / inside)
    if userns is not None and not userns.mounted:  # private scratch: bubblewrap's tmpfs, with a byte cap
        size = ["--size", str(userns.tmp_bytes)] if "--size" in caps.bwrap_options else []
        for mount in ("/work", "/tmp"):
            view.args += [*size, "--perms", "1777", "--tmpfs", mount]
    else:  # private scratch: tmpfs mounts with a byte and an inode cap, made by `confine_prefix` on the host side
        if scratch is None:
            raise ValueError("the strong sandbox needs a scratch folder (or `userns` for the unprivileged one)")
        view.args += ["--bind", str(scratch / "work"), "/work", "--bind", str(scratch / "tmp"), "/tmp"]
    if userns is not None:  # the view's own tmpfs (its root, /dev and /dev/shm) belong to this user: read-only
        view.args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    view.args += ["--chdir", "/work"]
    if seccomp_fd is not None:
        view.args += ["--seccomp", str(seccomp_fd)]
    for key, value in child_environment("/work").items():
        view.args += ["--setenv", key, value]
    if userns is not None:  # the limit is set inside the namespace: the kernel counts the sandbox's processes only
        view.args += ["--", caps.prlimit, f"--nproc={userns.processes}", "--"] if caps.nproc_per_userns else ["--"]
    else:
        if caps.setpriv is None or uid is None:
            raise ValueError("the strong sandbox needs setpriv and a uid to run the child as")
        view.args += ["--", caps.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                      "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    view.args += [python, *PYTHON_FLAGS, *(program or [str(INSIDE / "child" / "harness.py")])]
    return view.args, extra


def child_environment(home: str) -> Dict[str, str]:
    """The whole environment of a child: nothing inherited from the grader."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def make_readable(path: Path) -> None:
    """World-readable files (0644) and traversable dirs (0755), so the slot uid can read its view.

    Needed whatever the grader's umask: everything bound into the sandbox goes through this.
    """
    targets = [path] + (list(path.rglob("*")) if path.is_dir() else [])
    for target in targets:
        if target.is_symlink():
            continue
        target.chmod(0o755 if target.is_dir() else 0o644)


# ----------------------------------------------------------------- per-sandbox limits


#: per machine: audit arch, syscalls refused outright (the kernel keyring: add_key, request_key, keyctl;
#: flock and inotify: shared read-only files of the runtime would carry signals between sandboxes), fcntl
SYSCALLS = {
    "x86_64": (0xC000003E, (248, 249, 250, 73, 253, 294), 72),
    "aarch64": (0xC00000B7, (217, 218, 219, 32, 26), 25),
}
#: per machine: clone and unshare (refused with CLONE_NEWUSER: no user namespace inside the sandbox), clone3
#: (its flags sit in memory a filter cannot read: ENOSYS, and the C library falls back to clone)
NAMESPACE_SYSCALLS = {"x86_64": (56, 272, 435), "aarch64": (220, 97, 435)}
CLONE_NEWUSER = 0x10000000
#: fcntl commands refused: record locks (F_GETLK/SETLK/SETLKW and their OFD forms), leases, F_NOTIFY
FCNTL_REFUSED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JGE_K, _BPF_JSET_K, _BPF_RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_SECCOMP_ALLOW, _SECCOMP_EPERM, _SECCOMP_ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
#: offsets in struct seccomp_data: nr, arch, low halves of args[0] and args[1]
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24


def seccomp_program(machine: Optional[str] = None) -> Optional[bytes]:
    """A classic-BPF seccomp filter (struct sock_filter[]) failing with EPERM what lets two sandboxes
    talk: the kernel keyring (keys outlive a sandbox and cross uids once granted), flock and fcntl
    locks and inotify (the runtime's read-only files are the same inodes in every sandbox); and new
    user namespaces (needless kernel surface: mounting, new capabilities). Syscalls of a foreign ABI
    (x32, i386 on x86_64) fail too. None on a machine not listed.
    """
    machine = machine or os.uname().machine
    if machine not in SYSCALLS:
        return None
    arch, refused, fcntl_nr = SYSCALLS[machine]
    # (op, jump-if-true label, jump-if-false label, k); labels resolve to relative jumps below
    code = [(_BPF_LD_W_ABS, None, None, _ARCH), (_BPF_JEQ_K, "nr", "deny", arch), ("nr",),
            (_BPF_LD_W_ABS, None, None, _NR)]
    if machine == "x86_64":  # x32 syscalls carry bit 30
        code.append((_BPF_JGE_K, "deny", None, 0x40000000))
    clone, unshare, clone3 = NAMESPACE_SYSCALLS[machine]
    code += [(_BPF_JEQ_K, "deny", None, number) for number in refused]
    code += [(_BPF_JEQ_K, "nosys", None, clone3), (_BPF_JEQ_K, "flags", None, clone),
             (_BPF_JEQ_K, "flags", None, unshare), (_BPF_JEQ_K, "fcntl", None, fcntl_nr),
             (_BPF_RET_K, None, None, _SECCOMP_ALLOW),
             ("flags",), (_BPF_LD_W_ABS, None, None, _ARG0), (_BPF_JSET_K, "deny", None, CLONE_NEWUSER),
             (_BPF_RET_K, None, None, _SECCOMP_ALLOW),
             ("fcntl",), (_BPF_LD_W_ABS, None, None, _ARG1)]
    code += [(_BPF_JEQ_K, "deny", None, command) for command in FCNTL_REFUSED]
    code += [(_BPF_RET_K, None, None, _SECCOMP_ALLOW), ("nosys",), (_BPF_RET_K, None, None, _SECCOMP_ENOSYS),
             ("deny",), (_BPF_RET_K, None, None, _SECCOMP_EPERM)]
    return _assemble(code)


def _assemble(code: List[tuple]) -> bytes:
    """Resolve ("label",) markers into relative jump offsets and pack struct sock_filter rows."""
    labels: Dict[str, int] = {}
    rows: List[tuple] = []
    for item in code:
        if len(item) == 1:
            labels[item[0]] = len(rows)
        else:
            rows.append(item)

    def offset(label: Optional[str], index: int) -> int:
        return 0 if label is None else labels[label] - index - 1

    return b"".join(struct.pack("<HBBI", op, offset(jt, i), offset(jf, i), k) for i, (op, jt, jf, k) in enumerate(rows))


#: the shell run (as root, in a new private mount namespace) before prlimit and bubblewrap: join the
#: control group, mount the two scratch tmpfs with their caps, then exec the rest of the command
CONFINE_SCRIPT = (
    'n=$1; shift; '
    'while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "sandbox setup: cannot join $1" >&2; exit 125; }; '
    'shift; n=$((n-1)); done; '
    'o="size=$2,nr_inodes=$3,mode=1777"; '
    'for d in work tmp; do mount -t tmpfs -o "$o" "sandbox-$d" "$1/$d" '
    '|| { echo "sandbox setup: cannot mount $1/$d" >&2; exit 125; }; done; '
    'shift 4; exec "$@"'
)


def confine_prefix(scratch: Path, procs_files: List[Path], tmp_mib: int, tmp_inodes: int,
                   user_namespace: bool = False) -> List[str]:
    """The command prefix that puts a child's whole tree in its control group (`procs_files`, may be
    empty) and gives it `scratch/work` and `scratch/tmp` as tmpfs of `tmp_mib` MiB and `tmp_inodes`
    inodes each, in a private mount namespace: they vanish with the child, nothing to unmount.
    `user_namespace` (the unprivileged level: no control group) makes that mount namespace in a new user
    namespace where this user is root, so that it may mount them."""
    for name in ("work", "tmp"):
        (scratch / name).mkdir(parents=True, exist_ok=True)
    user = ["--user", "--map-root-user"] if user_namespace else []
    return ["unshare", *user, "--mount", "--propagation", "private", "--", "/bin/sh", "-c", CONFINE_SCRIPT, "sh",
            str(len(procs_files)), *map(str, procs_files), str(scratch), str(tmp_mib * 1024 * 1024),
            str(tmp_inodes), "--"]
