"""Intake stage: open a submission (folder or .zip) and stage the files the problems grade.

Only the contract's files are ever extracted; everything else in a submission
is ignored (a submitted conftest.py, sitecustomize.py or .pth never runs).
Students submit the whole starter folder (tests/, setup.py, src/*.cu, a
compiled .so, `.git/`, caches): version-control, cache and virtual-environment
folders are skipped without a word and do not count towards the entry cap;
other files cost nothing unless they are the contract's.
Nothing is followed out of the submission: symlinks are refused, `..` and
absolute paths in archives are refused, and sizes are capped before reading.
Every refusal becomes a message naming the file and the problem.
"""

from __future__ import annotations

import ast
import hashlib
import os
import stat
import sys
import threading
import zipfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Deque, Dict, Iterable, Iterator, List, Optional, Tuple, TypeVar

from .safetext import one_line

#: what intake says of a file `compile` gives up on without a SyntaxError (too deep, too big for memory)
CANNOT_COMPILE = "cannot be compiled"
#: Largest student source file accepted.
MAX_FILE_BYTES = 2 * 1024 * 1024
#: Most entries looked at in an archive or folder (entries inside IGNORED_DIRS are not counted).
MAX_ENTRIES = 5000
#: Largest uncompressed/compressed ratio accepted for an extracted archive member.
MAX_RATIO = 200
#: Folders never looked into: version control, caches, editors' and Python's environments and build copies.
IGNORED_DIRS = {
    "__MACOSX", ".git", ".hg", ".svn", "__pycache__", ".ipynb_checkpoints", ".hypothesis", ".pytest_cache",
    ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".venv", "venv", "site-packages", "node_modules",
    ".idea", ".vscode", ".eggs",
}
#: Files never looked at (desktop metadata that would stop a wrapping folder from being unwrapped).
IGNORED_FILES = {".DS_Store", "Thumbs.db", "desktop.ini"}
#: Deepest folder level of a submission folder looked into (deeper folders are skipped, with a warning).
MAX_DEPTH = 64
#: Longest file name shown in a message (longer ones are cut in the middle).
SHOWN_CHARS = 200


def _shown(name: str) -> str:
    """A student-chosen file or folder name as messages show it: one printable line, at most SHOWN_CHARS."""
    name = one_line(name)
    if len(name) > SHOWN_CHARS:
        half = SHOWN_CHARS // 2
        name = f"{name[:half]}…{name[-half:]}"
    return name


def ignored(rel: str) -> bool:
    """True for a path inside an ignored folder (or a `*.egg-info` one), or an ignored file."""
    parts = rel.split("/")
    return parts[-1] in IGNORED_FILES or any(p in IGNORED_DIRS or p.endswith(".egg-info") for p in parts[:-1])


def _too_many(where: str, rels: List[str]) -> ValueError:
    """The entry-cap error, naming the folders that hold most of the files."""
    counts: Dict[str, int] = {}
    for rel in rels:
        folder = "/".join(rel.split("/")[:-1][:3]) or "."
        counts[folder] = counts.get(folder, 0) + 1
    crowded = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    names = ", ".join(f"{_shown(folder)}/ ({n} files)" for folder, n in crowded)
    return ValueError(
        f"{_shown(where)}: more than {MAX_ENTRIES} files in the submission (most are in {names}); "
        "submit the starter folder without data or environment folders"
    )


@dataclass
class StudentFile:
    """One contract file of a submission."""

    #: the contract path, e.g. ``minitorch/autodiff.py``
    path: str
    #: the staged copy handed to the sandbox (None when the file is missing or unusable)
    staged: Optional[Path] = None
    #: where it was found, when not at the contract path
    found_at: Optional[str] = None
    #: why the file cannot be graded (missing, not UTF-8, syntax error, ...)
    error: Optional[str] = None
    #: the line the error is on, when there is one
    line: Optional[int] = None


@dataclass
class Submission:
    """A submission after intake."""

    name: str
    source: Path
    files: Dict[str, StudentFile]
    #: problems with the submission as a whole (not a zip, empty, too many files)
    errors: List[str] = field(default_factory=list)
    #: things refused or guessed that the student should know about
    warnings: List[str] = field(default_factory=list)
    #: hash of the contract files' bytes (resume key of batch grading)
    content_hash: str = ""


class _Entry:
    """A candidate file inside the submission, read lazily with a size cap."""

    def __init__(self, rel: str, size: int, reader, refused: Optional[str] = None):
        self.rel = rel
        self.size = size
        self.reader = reader
        self.refused = refused


def _safe_rel(name: str) -> Optional[str]:
    """Normalised relative path, or None for absolute/`..`/empty names (zip slip)."""
    name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


def _zip_entries(path: Path, warnings: List[str]) -> List[_Entry]:
    entries: List[_Entry] = []
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
    for info in infos:
        if info.is_dir():
            continue
        rel = _safe_rel(info.filename)
        if rel is None:
            warnings.append(f"{_shown(path.name)}: refused archive entry '{_shown(info.filename)}' "
                            "(absolute path or '..')")
            continue
        if ignored(rel):
            continue
        mode = info.external_attr >> 16
        refused = None
        if stat.S_ISLNK(mode):
            refused = "it is a symbolic link (links are never followed)"
        elif info.file_size > MAX_FILE_BYTES:
            refused = f"it is {info.file_size} bytes (at most {MAX_FILE_BYTES})"
        elif info.compress_size and info.file_size / info.compress_size > MAX_RATIO:
            refused = f"its compression ratio is {info.file_size // info.compress_size}:1 (zip bomb?)"

        def reader(info=info):
            with zipfile.ZipFile(path) as archive, archive.open(info) as member:
                data = member.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise ValueError(f"more than {MAX_FILE_BYTES} bytes once uncompressed")
            return data

        entries.append(_Entry(rel, info.file_size, reader, refused))
    if len(entries) > MAX_ENTRIES:
        raise _too_many(path.name, [e.rel for e in entries])
    return entries


def _skipped_dir(name: str) -> bool:
    return name in IGNORED_DIRS or name.endswith(".egg-info")


def _walk(root: Path, warnings: List[str]) -> Iterator[Tuple[str, os.DirEntry]]:
    """(relative path, entry) of every non-folder under `root`, breadth first and without recursion.

    Symbolic links are listed, never followed. Ignored folders are not entered. Folders deeper than
    MAX_DEPTH, or that cannot be listed (e.g. their path exceeds PATH_MAX), are skipped with one
    warning naming the first of them; what was found elsewhere is still returned, so a deep or broken
    folder never hides the submission's other files.
    """
    skipped: Dict[str, List[str]] = {"deep": [], "unreadable": []}
    pending: Deque[Tuple[str, int]] = deque([("", 0)])
    while pending:
        rel_dir, depth = pending.popleft()
        try:
            with os.scandir(root / rel_dir if rel_dir else root) as scan:
                found = list(scan)
        except OSError:
            if not rel_dir:
                raise
            skipped["unreadable"].append(rel_dir)
            continue
        for entry in found:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if entry.is_symlink() and entry.is_dir():
                continue  # a link to a folder: never followed, never listed (as os.walk does)
            if not entry.is_dir(follow_symlinks=False):
                yield rel, entry
            elif not _skipped_dir(entry.name):
                if depth + 1 < MAX_DEPTH:
                    pending.append((rel, depth + 1))
                else:
                    skipped["deep"].append(rel)
    for kind, why in (("deep", f"more than {MAX_DEPTH} folders deep"), ("unreadable", "it cannot be listed")):
        if skipped[kind]:
            more = f" and {len(skipped[kind]) - 1} other folder(s)" if len(skipped[kind]) > 1 else ""
            warnings.append(f"{_shown(root.name)}: skipped the folder {_shown(skipped[kind][0])}/{more} ({why}); "
                            "files in it were not looked at")


def _dir_entries(root: Path, warnings: List[str]) -> List[_Entry]:
    entries: List[_Entry] = []
    for rel, entry in _walk(root, warnings):
        if entry.name in IGNORED_FILES:
            continue
        if len(entries) >= MAX_ENTRIES:
            raise _too_many(root.name, [e.rel for e in entries])
        full = root / rel
        st = entry.stat(follow_symlinks=False)
        refused = None
        if stat.S_ISLNK(st.st_mode):
            refused = "it is a symbolic link (links are never followed)"
        elif not stat.S_ISREG(st.st_mode):
            refused = "it is not a regular file"
        elif st.st_size > MAX_FILE_BYTES:
            refused = f"it is {st.st_size} bytes (at most {MAX_FILE_BYTES})"

        def reader(full=full):
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise ValueError(f"more than {MAX_FILE_BYTES} bytes")
            return data

        entries.append(_Entry(rel, st.st_size, reader, refused))
    return entries


def _unwrap_single_folder(entries: List[_Entry], wanted: List[str]) -> List[_Entry]:
    """A submission whose files all sit in one top-level folder is that folder.

    Never unwraps a folder of the contract's layout itself (`minitorch/`, `project/`).
    """
    layout = {w.split("/", 1)[0] for w in wanted if "/" in w}
    while entries:
        tops = {e.rel.split("/", 1)[0] for e in entries}
        if len(tops) != 1 or tops & layout or any("/" not in e.rel for e in entries):
            return entries
        entries = [_Entry(e.rel.split("/", 1)[1], e.size, e.reader, e.refused) for e in entries]
    return entries


def _shallowest(matches: List[_Entry]) -> List[_Entry]:
    """The matches at the smallest folder depth (`hw2/minitorch/x.py` over `hw2/build/lib/minitorch/x.py`)."""
    if not matches:
        return matches
    depth = min(m.rel.count("/") for m in matches)
    return [m for m in matches if m.rel.count("/") == depth]


def _locate(wanted: str, entries: List[_Entry]) -> Tuple[Optional[_Entry], Optional[str]]:
    """The entry for a contract path: exact, else a unique suffix match, else a unique basename."""
    by_rel = {e.rel: e for e in entries}
    if wanted in by_rel:
        return by_rel[wanted], None
    for predicate, how in (
        (lambda e: e.rel.endswith("/" + wanted), "a subfolder"),
        (lambda e: e.rel.rsplit("/", 1)[-1] == wanted.rsplit("/", 1)[-1], "another folder"),
    ):
        matches = _shallowest([e for e in entries if predicate(e)])
        if len(matches) == 1:
            return matches[0], f"{wanted} not found; using {_shown(matches[0].rel)} (found in {how})"
        if len(matches) > 1:
            names = ", ".join(_shown(m) for m in sorted(m.rel for m in matches)[:5])
            return None, f"{wanted} not found, and several candidates exist ({names}); put it at {wanted}"
    return None, None


#: CPython 3.11's AST conversion is not thread-safe ("AST constructor recursion depth mismatch"
#: when several threads parse at once): every parse in the grader goes through this lock.
_AST_LOCK = threading.Lock()
#: A file nested deeper than the calling thread allows (a line of 3,000 unary minus signs: the parser's C
#: recursion is bounded by the recursion limit times 3, counted from the caller's own depth) is parsed again
#: in a thread of its own with this much stack and this recursion limit (about 60,000 levels of nesting,
#: twenty times what `compile` accepts at Python's default limit, far inside the stack: measured, < 1 KiB a level).
DEEP_STACK_BYTES = 256 * 1024 * 1024
DEEP_RECURSION_LIMIT = 20_000
#: one deep call at a time (the recursion limit is the process's)
_DEEP_LOCK = threading.Lock()
_T = TypeVar("_T")


def _in_thread(fn: Callable[..., _T], *args: object) -> _T:
    """`fn(*args)` in a new thread (at depth zero), its exception raised here."""
    outcome: Dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="syntax-tree", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def run_deep(fn: Callable[..., _T], *args: object) -> _T:
    """`fn(*args)` in a new thread with DEEP_STACK_BYTES of stack and the recursion limit raised to
    DEEP_RECURSION_LIMIT (restored after); its exception is raised here. Only for the grader's own
    syntax-tree work (the parent runs no student code)."""
    with _DEEP_LOCK:
        limit = sys.getrecursionlimit()
        previous = threading.stack_size(DEEP_STACK_BYTES)
        try:
            sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
            return _in_thread(fn, *args)
        finally:
            threading.stack_size(previous)
            sys.setrecursionlimit(limit)


def parse_python(text: str, filename: str = "<unknown>") -> ast.Module:
    """ast.parse, serialised across threads. A file nested too deeply for the caller's stack is parsed
    again in a deep thread (`run_deep`); RecursionError or MemoryError only when that fails too."""
    with _AST_LOCK:
        try:
            return ast.parse(text, filename=filename)
        except RecursionError:
            pass
        return run_deep(ast.parse, text, filename)


def compile_python(text: str, filename: str) -> None:
    """Raise what `compile` raises on `text` at Python's own recursion limit, counted from depth zero
    (so intake's verdict does not depend on where it is called from)."""
    with _AST_LOCK:
        try:
            compile(text, filename, "exec", dont_inherit=True)
        except RecursionError:
            _in_thread(compile, text, filename, "exec", 0, True)


def check_source(data: bytes, display: str) -> Tuple[Optional[str], Optional[int], Optional[str]]:
    """(text, None, None) for a usable Python file, else (None, line, error message)."""
    if b"\x00" in data:
        return None, None, f"{display} is a binary file, not Python source"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, line, f"{display}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
    try:
        compile_python(text, display)
    except SyntaxError as exc:
        return None, exc.lineno, f"{display}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return None, None, f"{display}: {CANNOT_COMPILE} ({type(exc).__name__}: {exc})"
    return text, None, None


def open_submission(source: Path, workspace: Path, wanted: Iterable[str], name: Optional[str] = None) -> Submission:
    """Validate `source` and stage the `wanted` contract files under `workspace`.

    The submission's name (`name`, else the entry's name without .zip) is made one printable line."""
    name = one_line(name or source.name.removesuffix(".zip"))
    wanted = list(dict.fromkeys(wanted))
    submission = Submission(name=name, source=source, files={w: StudentFile(w) for w in wanted})
    warnings = submission.warnings
    try:
        if source.is_symlink():
            raise ValueError(f"{_shown(source.name)} is a symbolic link; submit the folder or zip itself")
        if source.is_dir():
            entries = _dir_entries(source, warnings)
        elif source.is_file() and zipfile.is_zipfile(source):
            entries = _zip_entries(source, warnings)
        elif source.is_file():
            raise ValueError(f"{_shown(source.name)} is neither a folder nor a zip archive")
        else:
            raise ValueError(f"{_shown(str(source))} does not exist")
    except (ValueError, OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError) as exc:
        submission.errors.append(str(exc))
        entries = []
    entries = [e for e in entries if not ignored(e.rel)]
    if not entries and not submission.errors:
        submission.errors.append(f"{_shown(name)}: the submission is empty")
    entries = _unwrap_single_folder(entries, wanted)
    digest = hashlib.sha256()
    for path in wanted:
        record = submission.files[path]
        entry, note = _locate(path, entries)
        if entry is None:
            if submission.errors and not entries:
                record.error = f"{path} was not read: {submission.errors[0]}"
            else:
                record.error = note or f"{path} is missing from the submission"
            continue
        if note:
            record.found_at = _shown(entry.rel)
            warnings.append(note)
        if entry.refused:
            record.error = f"{_shown(entry.rel)} refused: {entry.refused}"
            continue
        try:
            data = entry.reader()
        except (ValueError, OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError) as exc:
            record.error = f"{_shown(entry.rel)} could not be read: {exc}"
            continue
        digest.update(path.encode() + b"\0" + hashlib.sha256(data).digest())
        text, line, error = check_source(data, path)
        if error or text is None:
            record.error, record.line = error, line
            continue
        staged = workspace / "files" / path
        staged.parent.mkdir(parents=True, exist_ok=True)
        staged.write_text(text, encoding="utf-8")
        staged.chmod(0o644)  # read by the sandbox's unprivileged uid, whatever the umask
        record.staged = staged
    submission.content_hash = digest.hexdigest()
    return submission
