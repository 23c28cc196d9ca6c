"""The grader's cache: artefacts built once per grader version *and* runtime, checked before every use.

Layout (``$AUTOGRADE_CACHE``, default ``~/.cache/minitorch-autograder``)::

    <grader version>/<runtime key>/
        stacks/<problem>/  child/  probes/<problem>/  inputs/<problem>/   folders (`cached_dir`)
        runs/<problem>/<label>-<seed>.json                                 sealed documents (`cached_json`)
        mutants/<problem>/<mutant>.py, locks/, work/

The runtime key names everything that changes an artefact besides the grader's own files: the interpreter
(implementation, version, bytecode magic), numpy's version and the platform. Bytecode is per interpreter, and
a reference run is a measurement of one interpreter and numpy, so interpreters of one user share a cache
root safely: each reads and writes its own folder.

Nothing cached is trusted blindly. A folder is written under a lock into a temporary name, gets a manifest
(every file's size and sha256) and is renamed into place; before use its manifest is checked (in full once
per process, then by size and mtime), its bytecode must carry this interpreter's magic, and every entry must
belong to this user and be writable by nobody else. A document carries its own sha256. An entry that fails
any check (truncated, corrupt, half-written, foreign) is moved aside and rebuilt; one that cannot be rebuilt
is a `CacheFault` (a grader fault, never a student's score).
"""

from __future__ import annotations

import compileall
import fcntl
import hashlib
import importlib.util
import json
import os
import platform
import py_compile
import secrets
import shutil
import stat
import sys
import sysconfig
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Optional, Tuple

from . import sandbox
from .faults import CacheFault, inject
from .version import grader_version

MANIFEST = ".manifest.json"
CACHE_ENV = "AUTOGRADE_CACHE"


@lru_cache(maxsize=1)
def runtime_facts() -> Dict[str, str]:
    """What, besides the grader's files, changes a cached artefact: the interpreter, numpy, the platform."""
    try:
        from importlib.metadata import version

        numpy_version = version("numpy")
    except Exception:  # no numpy metadata: the grader cannot run children anyway; key it apart
        numpy_version = "none"
    return {
        "implementation": sys.implementation.name,
        "python": platform.python_version(),
        "cache_tag": str(sys.implementation.cache_tag),
        "magic": importlib.util.MAGIC_NUMBER.hex(),
        "numpy": numpy_version,
        "platform": sysconfig.get_platform(),
        "machine": platform.machine(),
    }


@lru_cache(maxsize=1)
def runtime_key() -> str:
    """A folder name for `runtime_facts()`: readable prefix (``cpython-311``) and a hash of all of them."""
    facts = runtime_facts()
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:12]
    return f"{facts['cache_tag']}-{digest}"


def cache_base() -> Path:
    return Path(os.environ.get(CACHE_ENV, Path.home() / ".cache" / "minitorch-autograder"))


def cache_root() -> Path:
    """Where this grader version, on this runtime, caches its artefacts (AUTOGRADE_CACHE moves the base)."""
    return cache_base() / grader_version() / runtime_key()


@contextmanager
def locked(path: Path, wait: bool = True) -> Iterator[bool]:
    """An exclusive lock so parallel graders build each cached artefact once. Yields whether it is held: always,
    once it is, when `wait`; without `wait`, False at once when another holder has it (nothing is then held)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ------------------------------------------------------------------ checks


def _foreign(info: os.stat_result) -> Optional[str]:
    """Why an entry with this stat cannot be trusted by this user, or None."""
    if info.st_uid != os.getuid():
        return f"owned by uid {info.st_uid}"
    if info.st_mode & 0o022:
        return f"writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.name != MANIFEST and not path.is_dir():
            yield path


def write_manifest(folder: Path) -> None:
    """Record every file of `folder` (size, sha256): written last, so a folder without one is half-built."""
    entries = {p.relative_to(folder).as_posix(): {"size": p.stat().st_size, "sha256": _sha256(p)}
               for p in _files(folder)}
    (folder / MANIFEST).write_text(json.dumps({"runtime": runtime_facts(), "files": entries}, sort_keys=True))


#: folders checked in full by this process: path -> {file: (size, mtime_ns)} (later uses compare these)
_VERIFIED: Dict[str, Dict[str, Tuple[int, int]]] = {}
_VERIFIED_LOCK = threading.Lock()


def forget_verified() -> None:
    """Check every cached folder in full again at its next use (a retry after a fault does this)."""
    with _VERIFIED_LOCK:
        _VERIFIED.clear()


def folder_problem(folder: Path) -> Optional[str]:
    """None if the cached `folder` can be used as it is, else what is wrong with it."""
    try:
        why = _foreign(folder.lstat())
        if why or folder.is_symlink():
            return f"the folder is {why or 'a symbolic link'}"
        manifest = json.loads((folder / MANIFEST).read_text())
        files: Dict[str, Dict[str, Any]] = manifest["files"]
        if manifest.get("runtime") != runtime_facts():
            return "it was built for another runtime"
        on_disk = {p.relative_to(folder).as_posix(): p for p in _files(folder)}
        if set(on_disk) != set(files):
            extra, missing = sorted(set(on_disk) - set(files)), sorted(set(files) - set(on_disk))
            return f"files differ from its manifest (extra {extra[:3]}, missing {missing[:3]})"
        with _VERIFIED_LOCK:
            known = _VERIFIED.get(str(folder))
        seen: Dict[str, Tuple[int, int]] = {}
        for rel, path in on_disk.items():
            info = path.lstat()
            why = _foreign(info) or ("a symbolic link" if stat.S_ISLNK(info.st_mode) else None)
            if why:
                return f"{rel} is {why}"
            seen[rel] = (info.st_size, info.st_mtime_ns)
            if info.st_size != files[rel]["size"]:
                return f"{rel} has {info.st_size} bytes, its manifest says {files[rel]['size']} (truncated?)"
            if known is not None and known.get(rel) == seen[rel]:
                continue
            if path.suffix == ".pyc" and path.read_bytes()[:4] != importlib.util.MAGIC_NUMBER:
                return f"{rel} is bytecode of another interpreter (bad magic number)"
            if _sha256(path) != files[rel]["sha256"]:
                return f"{rel} does not match its manifest (corrupt)"
        with _VERIFIED_LOCK:
            _VERIFIED[str(folder)] = seen
        return None
    except FileNotFoundError as exc:
        return f"{Path(exc.filename or '?').name} is missing"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"it cannot be read ({type(exc).__name__}: {exc})"


def discard(path: Path, why: str) -> None:
    """Move a cache entry that cannot be trusted out of the way (then delete it); a CacheFault if it stays."""
    aside = path.with_name(f"{path.name}.discarded-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return  # another grader moved it already
    except OSError as exc:
        raise CacheFault(f"the cache entry {path} cannot be trusted ({why}) and cannot be moved aside: {exc}") from None
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(aside, ignore_errors=True)
    else:
        aside.unlink(missing_ok=True)


# ------------------------------------------------------------------ artefacts


def cached_dir(name: str, build: Callable[[Path], object]) -> Path:
    """`cache_root()/name`, built once per grader version and runtime by `build(tmp_dir)`, world-readable,
    checked before every use and rebuilt when it fails the check (`folder_problem`).

    Built in a temporary directory under a lock, given its manifest and renamed into place, so parallel
    graders (threads or processes) build it once and never see half of it.
    """
    inject("cache")
    dest = cache_root() / name
    if dest.exists() and folder_problem(dest) is None:
        return dest
    with locked(cache_root() / "locks" / name.replace("/", "-")):
        if dest.exists() or dest.is_symlink():
            why = folder_problem(dest)
            if why is None:
                return dest
            discard(dest, why)
        tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
        try:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            build(tmp)
            compile_sources(tmp)
            sandbox.make_readable(tmp)
            write_manifest(tmp)
            sandbox.make_readable(tmp / MANIFEST)
            tmp.rename(dest)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise CacheFault(f"the cache entry {dest} could not be built: {type(exc).__name__}: {exc}") from None
    why = folder_problem(dest)
    if why is not None:
        raise CacheFault(f"the cache entry {dest} fails its check right after it was built: {why}")
    return dest


def compile_sources(folder: Path) -> None:
    """Bytecode for every module under `folder` (`__pycache__/*.pyc`, hash-checked: Python uses it only while
    the source still has the hash it was compiled from). A sandboxed child cannot write bytecode, so without it
    every child compiled the stack, the harness and the probes again (about 80 ms of each child's CPU)."""
    compileall.compile_dir(str(folder), quiet=2, workers=1, stripdir=str(folder),  # no host path in the bytecode
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)


def read_sealed(path: Path) -> Optional[Any]:
    """The document of a sealed JSON file, or None if it is missing, foreign, unreadable or does not match
    its seal (a truncated or edited file). The file is a header line (runtime, sha256) and the document's JSON,
    hashed as it is stored."""
    try:
        if _foreign(path.lstat()) or path.is_symlink():
            return None
        header, _, body = path.read_bytes().partition(b"\n")
        seal = json.loads(header)
        if seal.get("runtime") != runtime_facts() or hashlib.sha256(body).hexdigest() != seal["sha256"]:
            return None
        return json.loads(body)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_sealed(path: Path, document: Any) -> None:
    """Write `document` under a header with its sha256 and runtime, atomically (a temporary name, then a rename)."""
    body = json.dumps(document).encode()
    header = json.dumps({"runtime": runtime_facts(), "sha256": hashlib.sha256(body).hexdigest()}).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    try:
        tmp.write_bytes(header + b"\n" + body)
        tmp.chmod(0o644)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CacheFault(f"the cache entry {path} could not be written: {type(exc).__name__}: {exc}") from None


def cached_json(name: str, build: Callable[[], Any], usable: Callable[[Any], bool] = lambda doc: True,
                wait: bool = True) -> Any:
    """The sealed document `cache_root()/name`, built once by `build()` under a lock; a document that is
    missing, foreign, fails its seal or is not `usable` is built again. Without `wait`: None at once when another
    process is building it (its lock is held), so that the caller may build something else meanwhile."""
    inject("cache")
    path = cache_root() / name
    document = read_sealed(path)
    if document is not None and usable(document):
        return document
    with locked(cache_root() / "locks" / name.replace("/", "-"), wait=wait) as held:
        if not held:
            return None
        document = read_sealed(path)
        if document is not None and usable(document):
            return document
        if path.exists() or path.is_symlink():
            discard(path, "it fails its seal")
        document = build()
        write_sealed(path, document)
    return document
