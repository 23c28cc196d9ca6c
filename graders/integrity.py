"""Integrity screen: constructs in a student's file that a TA should look at before trusting its score.

The probes run in the same process as the student's code (they must call it and
watch it work), so a submission determined to do so can reach the harness's
objects and send results of its own instead of the probes' (README, "What the
sandbox does not stop"). No valid solution of this
homework needs the tools that takes: the garbage collector's object lists, stack
frames, raw file descriptors, processes, `ctypes`, code built at run time, or the
grader's module names. This screen reads the file's syntax tree (it never runs
it) and lists each use with its line, for review by course staff.

A finding never changes a score: a student may import `gc` or call `eval` for a
harmless reason, and an automatic penalty would cost a valid solution points.
It puts the submission on the class report's "Needs attention" list and in
results.json (`extra_data.review`), and tells the student it will be reviewed.
The screen is a tripwire, not a proof: code that hides its tools from the
syntax tree (say, through a string decoded and executed) needs `exec`/`eval`,
`getattr` of a computed name or `__import__`, which are findings themselves.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, List, Optional

#: why each group of constructs is listed (shown to the student and to TAs)
PROCESS = "reaches into the grader's process (objects, frames or modules it did not create)"
SYSTEM = "uses raw operating-system handles (file descriptors, processes, signals, sockets)"
DYNAMIC = "runs or looks up code built at run time"
GRADER = "names the grader's own modules or the process's own files"
FILES = "reads or writes a file at a path computed at run time (the process's memory and descriptors are files)"

#: modules whose import alone is listed
MODULES = {
    "ctypes": PROCESS, "inspect": PROCESS, "gc": PROCESS, "_ctypes": PROCESS, "cffi": PROCESS,
    "subprocess": SYSTEM, "multiprocessing": SYSTEM, "socket": SYSTEM, "signal": SYSTEM, "pty": SYSTEM,
    "fcntl": SYSTEM, "mmap": SYSTEM, "resource": SYSTEM, "_thread": SYSTEM,
    "importlib": DYNAMIC, "marshal": DYNAMIC, "pickle": DYNAMIC, "dill": DYNAMIC, "code": DYNAMIC,
    "codeop": DYNAMIC, "builtins": DYNAMIC, "runpy": DYNAMIC, "pkgutil": DYNAMIC, "zipimport": DYNAMIC,
    "probekit": GRADER, "harness": GRADER, "probes": GRADER, "graders": GRADER, "_standin": GRADER,
    "_course_packages": GRADER,
}

#: module.attribute uses listed wherever they appear (`os` is everywhere; these parts of it are not)
ATTRIBUTES = {
    ("sys", "_getframe"): PROCESS, ("sys", "_current_frames"): PROCESS, ("sys", "modules"): PROCESS,
    ("sys", "settrace"): PROCESS, ("sys", "setprofile"): PROCESS, ("sys", "meta_path"): PROCESS,
    ("sys", "_getframemodulename"): PROCESS,
    ("os", "write"): SYSTEM, ("os", "writev"): SYSTEM, ("os", "read"): SYSTEM, ("os", "fdopen"): SYSTEM,
    ("os", "open"): SYSTEM, ("os", "dup"): SYSTEM, ("os", "dup2"): SYSTEM, ("os", "pipe"): SYSTEM,
    ("os", "fork"): SYSTEM, ("os", "forkpty"): SYSTEM, ("os", "kill"): SYSTEM, ("os", "killpg"): SYSTEM,
    ("os", "_exit"): SYSTEM, ("os", "system"): SYSTEM, ("os", "popen"): SYSTEM, ("os", "sendfile"): SYSTEM,
    ("os", "posix_spawn"): SYSTEM, ("os", "posix_spawnp"): SYSTEM, ("os", "close"): SYSTEM,
    ("os", "closerange"): SYSTEM, ("os", "truncate"): SYSTEM, ("os", "ftruncate"): SYSTEM,
    ("types", "FunctionType"): DYNAMIC, ("types", "CodeType"): DYNAMIC, ("types", "ModuleType"): DYNAMIC,
    ("operator", "attrgetter"): DYNAMIC, ("operator", "methodcaller"): DYNAMIC,
}
#: os.exec*, os.spawn*: listed by prefix
ATTRIBUTE_PREFIXES = {("os", "exec"): SYSTEM, ("os", "spawn"): SYSTEM}

#: attributes that only introspection of the interpreter uses (frames, code, globals, the class tree)
INTROSPECTION = frozenset({
    "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "tb_frame", "tb_next", "gi_frame", "cr_frame",
    "ag_frame", "__globals__", "__code__", "__closure__", "__subclasses__", "__builtins__", "__traceback__",
    "co_consts", "__self__", "__loader__", "__spec__", "__getattribute__", "__reduce_ex__",
    # raw memory: an array over any address (numpy needs no `import ctypes` for it)
    "ctypeslib", "ctypes", "as_strided", "__array_interface__", "__array_struct__",
})

#: built-in functions that run or import code given as data
DYNAMIC_CALLS = frozenset({"exec", "eval", "compile", "__import__"})
#: methods reading or writing a whole file (pathlib, numpy), listed unless the path is a plain string literal
FILE_METHODS = frozenset({"read_bytes", "write_bytes", "read_text", "write_text", "fromfile", "tofile", "memmap"})
#: strings naming the grader's internals or the process's own descriptors
GRADER_STRINGS = ("probekit", "harness", "_CHANNEL", "nonce", "/proc/self", "/proc/", "/dev/fd")


@dataclass(frozen=True)
class Finding:
    """One construct of the student's file worth a TA's look."""

    #: the file as the student named it (e.g. minitorch/autodiff.py)
    file: str
    line: int
    #: what was found, as written (e.g. "gc.get_objects", "import ctypes", "exec(...)")
    construct: str
    #: which group it belongs to (PROCESS, SYSTEM, DYNAMIC or GRADER)
    reason: str

    def describe(self) -> str:
        return f"{self.file}:{self.line}: {self.construct} ({self.reason})"


def screen_file(path: Path, shown_as: str) -> List[Finding]:
    """The findings of one staged file (nothing when it cannot be read or parsed: intake reports that)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=shown_as)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return screen_tree(tree, shown_as)


def screen_tree(tree: ast.AST, shown_as: str) -> List[Finding]:
    """The findings of a parsed module, in line order, each construct once per line."""
    found = {}
    for node in _walk(tree):
        for construct, reason in _constructs(node):
            key = (getattr(node, "lineno", 0), construct)
            found.setdefault(key, Finding(shown_as, key[0], construct, reason))
    return [found[k] for k in sorted(found)]


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, iteratively (a deeply nested expression must not overflow the grader's stack)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _constructs(node: ast.AST) -> Iterable[tuple]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            reason = MODULES.get(alias.name.partition(".")[0])
            if reason:
                yield f"import {alias.name}", reason
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        top = node.module.partition(".")[0]
        for alias in node.names:
            reason = MODULES.get(top) or _attribute_reason(top, alias.name)
            if reason:
                yield f"from {node.module} import {alias.name}", reason
    elif isinstance(node, ast.Attribute):
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        reason = _attribute_reason(owner, node.attr) if owner else None
        if reason:
            yield f"{owner}.{node.attr}", reason
        elif node.attr in INTROSPECTION:
            yield f".{node.attr}", PROCESS
    elif isinstance(node, ast.Name) and node.id in INTROSPECTION:
        yield node.id, PROCESS
    elif isinstance(node, ast.Call):
        yield from _call_constructs(node)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        hit = next((s for s in GRADER_STRINGS if s in node.value), None)
        if hit:
            yield f"the string {hit!r}", GRADER


def _call_constructs(node: ast.Call) -> Iterable[tuple]:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    if name in DYNAMIC_CALLS:
        yield f"{name}(...)", DYNAMIC
    elif name in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2 and not _literal(node.args[1]):
        yield f"{name}(..., <computed name>)", DYNAMIC
    elif name == "open" and node.args and _int_like(node.args[0]):
        yield "open(<file descriptor>)", SYSTEM
    elif name == "open" and node.args and not _literal(node.args[0]):
        yield "open(<computed path>)", FILES
    elif isinstance(node.func, ast.Attribute) and node.func.attr in FILE_METHODS and not _literal_path(node):
        yield f".{node.func.attr}(...)", FILES


def _attribute_reason(owner: Optional[str], attr: str) -> Optional[str]:
    reason = ATTRIBUTES.get((owner, attr))
    if reason is None:
        reason = next((r for (o, p), r in ATTRIBUTE_PREFIXES.items() if o == owner and attr.startswith(p)), None)
    return reason


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _literal_path(call: ast.Call) -> bool:
    """`np.fromfile("x.bin")`, `Path("log.txt").write_text(...)`: the path is a plain string literal."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Call) and receiver.args:
        return all(_literal(a) for a in receiver.args)
    return bool(call.args) and _literal(call.args[0])


def _int_like(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


#: constructs and lines named per group in a summary (a file with thousands of findings stays one short line)
SHOWN = 5


def summarise(findings: List[Finding]) -> List[str]:
    """One line per file and group: "f.py, lines 3, 9: names the grader's own modules (import probekit, ...)"."""
    groups: dict = {}
    for f in findings:
        constructs, lines = groups.setdefault((f.file, f.reason), ({}, {}))
        constructs.setdefault(f.construct)
        lines.setdefault(f.line)
    summary = []
    for (file, reason), (constructs, lines) in groups.items():
        shown_lines = ", ".join(str(n) for n in list(lines)[:SHOWN]) + (", ..." if len(lines) > SHOWN else "")
        shown = ", ".join(list(constructs)[:SHOWN]) + (", ..." if len(constructs) > SHOWN else "")
        word = "line" if len(lines) == 1 else "lines"
        summary.append(f"{file}, {word} {shown_lines}: {reason} ({shown})")
    return summary


def screen_submission(staged: Iterable[tuple]) -> List[str]:
    """The summary lines of every (staged path, shown name) pair, each file once."""
    findings: List[Finding] = []
    for path, shown_as in dict.fromkeys(staged):
        findings.extend(screen_file(path, shown_as))
    return summarise(findings)
