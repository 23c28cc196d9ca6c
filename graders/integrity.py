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
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from .intake import compile_python, parse_python, run_deep

#: why each group of constructs is listed (shown to the student and to TAs)
PROCESS = "reaches into the grader's process (objects, frames or modules it did not create)"
SYSTEM = "uses raw operating-system handles (file descriptors, processes, signals, sockets)"
DYNAMIC = "runs or looks up code built at run time"
GRADER = "names the grader's own modules or the process's own files"
FILES = "reads or writes a file at a path computed at run time (the process's memory and descriptors are files)"
UNANALYSED = "the screen could not check this file: a TA should read it"

#: modules whose import alone is listed
MODULES = {
    "ctypes": PROCESS, "inspect": PROCESS, "gc": PROCESS, "_ctypes": PROCESS, "cffi": PROCESS,
    "subprocess": SYSTEM, "multiprocessing": SYSTEM, "socket": SYSTEM, "signal": SYSTEM, "pty": SYSTEM,
    "fcntl": SYSTEM, "mmap": SYSTEM, "resource": SYSTEM, "_thread": SYSTEM,
    "importlib": DYNAMIC, "marshal": DYNAMIC, "pickle": DYNAMIC, "dill": DYNAMIC, "code": DYNAMIC,
    "codeop": DYNAMIC, "builtins": DYNAMIC, "runpy": DYNAMIC, "pkgutil": DYNAMIC, "zipimport": DYNAMIC,
    "posix": SYSTEM, "nt": SYSTEM, "_io": SYSTEM, "_posixsubprocess": SYSTEM, "_signal": SYSTEM,
    "linecache": GRADER, "pydoc": GRADER,
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
    ("io", "open"): SYSTEM, ("io", "FileIO"): SYSTEM, ("io", "open_code"): SYSTEM,
}
#: the attribute names of ATTRIBUTES (a string built at run time that spells one is listed)
LISTED_ATTRIBUTE_NAMES = frozenset(attr for _, attr in ATTRIBUTES)
#: modules whose star import hands over the listed attributes under bare names
STAR_LISTED = {"os": SYSTEM, "sys": PROCESS, "posix": SYSTEM, "nt": SYSTEM, "io": SYSTEM, "gc": PROCESS,
               "inspect": PROCESS, "ctypes": PROCESS, "traceback": PROCESS, "builtins": DYNAMIC}
#: os.exec*, os.spawn*: listed by prefix
ATTRIBUTE_PREFIXES = {("os", "exec"): SYSTEM, ("os", "spawn"): SYSTEM}

#: attributes that only introspection of the interpreter uses (frames, code, globals, the class tree)
INTROSPECTION = frozenset({
    "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "tb_frame", "tb_next", "gi_frame", "cr_frame",
    "ag_frame", "__globals__", "__code__", "__closure__", "__subclasses__", "__builtins__", "__traceback__",
    "co_consts", "__self__", "__loader__", "__spec__", "__getattribute__", "__reduce_ex__",
    # raw memory: an array over any address (numpy needs no `import ctypes` for it)
    "ctypeslib", "ctypes", "as_strided", "__array_interface__", "__array_struct__",
    # the interpreter's module table, import machinery, frames and tracing, whatever object they hang off
    # (`import sys as s; s.modules`, `os.sys`)
    "_getframe", "_current_frames", "settrace", "setprofile", "meta_path", "path_hooks", "excepthook",
    "last_traceback", "walk_stack", "walk_tb", "f_lineno", "f_trace",
    # frames by other roads (`logging.currentframe()`, `inspect.getouterframes`) and the collector's object graph
    # (`sys.modules['gc'].get_objects()`: the module reached without `import gc`)
    "currentframe", "getouterframes", "getinnerframes", "get_objects", "get_referrers", "get_referents",
})
#: the functions of listed modules (`gc`, `inspect`) named above: under their module's own listed import, not again
INTROSPECTION_FUNCTIONS = frozenset({"currentframe", "getouterframes", "getinnerframes", "get_objects",
                                     "get_referrers", "get_referents"})
#: listed as an attribute read, not as a method call (`sys.modules`, but `self.modules()` of a minitorch Module)
READ_ONLY_LISTED = frozenset({"modules"})
#: listed as an attribute only (`os.sys`), never as a name (`import sys` is everywhere)
ATTRIBUTE_ONLY = frozenset({"sys"})

#: dunder names a solution of this homework uses (operators, protocols, `if __name__ == "__main__"`); any
#: other dunder, as an attribute, a name, a string or a `getattr` argument, reaches into the interpreter
ORDINARY_DUNDERS = frozenset(f"__{n}__" for n in """
    init name main file class doc module qualname repr str len iter next getitem setitem delitem contains call
    hash eq ne lt le gt ge bool add radd iadd sub rsub isub mul rmul imul truediv rtruediv itruediv floordiv
    rfloordiv mod rmod pow rpow neg pos abs matmul rmatmul enter exit all version slots post_init setattr
    getattr delattr new del format float int index round annotations future dict reversed invert and rand or ror
    xor rxor array array_ufunc array_function array_priority
""".split())

#: built-in functions that run or import code given as data
DYNAMIC_CALLS = frozenset({"exec", "eval", "compile", "__import__"})
#: built-ins that look an attribute or a name up by a string: listed when the string is not a literal, and
#: wherever the function is used other than called directly (`g = getattr`, `partial(getattr, sys)`,
#: `getattr.__call__`): an alias hides the name it will look up
LOOKUPS = frozenset({"getattr", "setattr", "delattr", "vars", "globals", "locals"})
#: methods of a namespace (`vars(m)`, `m.__dict__`, `globals()`) that look a name up, like a subscript
NAMESPACE_METHODS = frozenset({"get", "pop", "setdefault", "__getitem__"})
#: modules whose whole namespace (`vars(sys)`, `sys.__dict__`) holds the interpreter's module table and frames
INTERPRETER_MODULES = frozenset({"sys", "builtins", "gc", "inspect", "_thread", "threading", "traceback"})
#: str methods folded on literal strings (`'MODULES'.lower()` is the string 'modules')
STR_METHODS = frozenset({"lower", "upper", "casefold", "swapcase", "title", "capitalize", "strip", "lstrip",
                         "rstrip", "replace", "removeprefix", "removesuffix", "format", "join"})
#: methods opening, reading or writing a file (pathlib, numpy, codecs), listed unless the path is a plain literal
FILE_METHODS = frozenset({"read_bytes", "write_bytes", "read_text", "write_text", "fromfile", "tofile", "memmap",
                          "open"})
#: names of the grader's child-side objects (the channel, its nonce, the probe registry)
GRADER_NAMES = frozenset({"_CHANNEL", "_ACK", "_nonce", "PROBES", "STUDENT_FILE"})
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
    """The findings of one staged file. A file intake refuses (missing, not UTF-8, a syntax error, binary) is
    never graded and is intake's to report: nothing. A file the screen cannot read or analyse in full is
    itself a finding (UNANALYSED): the screen fails closed, never silently."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [_unanalysed(shown_as, f"could not be read ({exc.strerror or type(exc).__name__})")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return []
    if "\x00" in text:
        return []
    try:
        return _screen_text(text, shown_as)
    except SyntaxError:
        why = _why_intake_refuses(text, shown_as)
        return [] if why is None else [_unanalysed(shown_as, why)]
    except RecursionError:
        return [_unanalysed(shown_as, "could not be analysed: nesting too deep for the screen")]
    except MemoryError:
        return [_unanalysed(shown_as, "could not be analysed: too large for the screen's memory")]
    except Exception as exc:  # fail closed: whatever stops the screen lists the file
        return [_unanalysed(shown_as, f"could not be analysed ({type(exc).__name__})")]


def _screen_text(text: str, shown_as: str) -> List[Finding]:
    tree = parse_python(text, filename=shown_as)  # one parse at a time in the whole grader; deep files too
    try:
        return screen_tree(tree, shown_as)
    except RecursionError:  # a deep expression in a recursive helper (ast.unparse): again with a deep stack
        return run_deep(screen_tree, tree, shown_as)


def _why_intake_refuses(text: str, shown_as: str) -> Optional[str]:
    """None when `compile` refuses `text` with a SyntaxError too (intake never stages it); else why the
    screen gives up on a file the interpreter would run."""
    try:
        compile_python(text, shown_as)
    except SyntaxError:
        return None
    except Exception as exc:
        return f"could not be analysed ({type(exc).__name__} where the parser raised SyntaxError)"
    return "could not be analysed: the screen's parser refuses a file the interpreter compiles"


def _unanalysed(shown_as: str, why: str) -> Finding:
    return Finding(shown_as, 0, why, UNANALYSED)


def screen_tree(tree: ast.AST, shown_as: str) -> List[Finding]:
    """The findings of a parsed module, in line order, each construct once per line."""
    found: Dict[Tuple[int, str], Finding] = {}
    nodes = list(_walk(tree))  # one walk (it writes each node's parent); the passes below read the list
    aliases = _module_aliases(nodes)
    imported = _imported_names(nodes)
    for node in nodes:
        for construct, reason in [*_constructs(node, aliases), *_patch_constructs(node, imported)]:
            key = (getattr(node, "lineno", 0), construct)
            found.setdefault(key, Finding(shown_as, key[0], construct, reason))
    return [found[k] for k in sorted(found)]


def _imported_names(nodes: Sequence[ast.AST]) -> set:
    """Every name an import statement among `nodes` binds (`import a.b` binds `a`; `from m import x as y` binds
    `y`)."""
    names: Set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.partition(".")[0] for alias in node.names if alias.name != "*")
    return names


def _root(node: ast.AST) -> Optional[str]:
    """The name an attribute chain starts from (`a` of `a.b.c`), None if it starts elsewhere."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _patch_constructs(node: ast.AST, imported: set) -> Iterable[tuple]:
    """Code that changes what another module holds (`mod.name = ...`, `del mod.name`, `setattr(mod, ...)`),
    e.g. the given code of the graded file's own module (the grader's copy, which probes use)."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and _root(node) in imported:
        yield f"{ast.unparse(node)[:60]} = ... (changes an imported module or class)", PROCESS
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
            and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in imported:
        yield f"{node.func.id}({node.args[0].id}, ...)", PROCESS


#: node classes whose instances the parser shares between every tree (Load, Add, Not, Eq, And, ...): no parent is
#: written on them (it would be another tree's, and would keep the last screened file's tree alive)
SHARED_NODES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, iteratively (a deeply nested expression must not overflow the grader's stack)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, SHARED_NODES):
                child._screen_parent = node  # type: ignore[attr-defined]  # read back by _parent()
            stack.append(child)


def _module_aliases(nodes: Sequence[ast.AST]) -> dict:
    """name -> module for `import sys as s`, `from os import path as p` style names and `s2 = s` copies, among
    `nodes` (a module's, `_walk`)."""
    aliases = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                aliases[alias.asname or top] = alias.name if alias.asname else top
    copies = [(node.value.id, node.targets) for node in nodes
              if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)]
    for _ in range(3):  # copies of copies
        for source, targets in copies:
            if source in aliases:
                for target in targets:
                    if isinstance(target, ast.Name):
                        aliases.setdefault(target.id, aliases[source])
    return aliases


def _constructs(node: ast.AST, aliases: dict) -> Iterable[tuple]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            reason = MODULES.get(alias.name.partition(".")[0])
            if reason:
                yield f"import {alias.name}", reason
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        top = node.module.partition(".")[0]
        for alias in node.names:
            reason = MODULES.get(top) or _attribute_reason(top, alias.name) or _name_reason(alias.name)
            if alias.name == "*":
                reason = reason or STAR_LISTED.get(top)
            if reason:
                yield f"from {node.module} import {alias.name}", reason
    elif isinstance(node, ast.Attribute):
        yield from _attribute_constructs(node, aliases)
    elif isinstance(node, ast.Name):
        if node.id in DYNAMIC_CALLS:  # called or not: `run = exec` hides the call
            yield node.id, DYNAMIC
        elif node.id in LOOKUPS and not _called_directly(node):
            yield f"{node.id} (not called directly: an alias hides the name it looks up)", DYNAMIC
        elif _name_reason(node.id):
            yield node.id, _name_reason(node.id)
    elif isinstance(node, ast.Call):
        yield from _call_constructs(node, aliases)
        text = _folded(node)  # `'MODULES'.lower()`
        if text is not None:
            yield from _computed_string_constructs(text)
    elif isinstance(node, ast.Subscript) and _namespace(node.value):
        yield from _namespace_lookup(node.value, node.slice, aliases)
    elif isinstance(node, ast.MatchClass):  # `case object(modules=m)` reads attributes
        for attr in node.kwd_attrs:
            reason = _name_reason(attr) or (PROCESS if attr in READ_ONLY_LISTED else None)
            if reason:
                yield f"case ...({attr}=...)", reason
    else:
        text = _folded(node)
        if text is not None:
            yield from _string_constructs(text)
            if not isinstance(node, (ast.Constant, ast.JoinedStr)):  # `f"x"` is a literal too
                yield from _computed_string_constructs(text)


def _namespace_lookup(namespace: ast.AST, key_node: Optional[ast.AST], aliases: dict) -> Iterable[tuple]:
    """`vars(m)[key]`, `m.__dict__.get(key)`: a lookup by name, listed like `getattr` (and like `m.key`)."""
    key = _folded(key_node) if key_node is not None else None
    if key is None:
        yield "a namespace looked up by a computed name", DYNAMIC
        return
    owner = _namespace_owner(namespace)
    module = aliases.get(owner, owner) if owner else None
    reason = _attribute_reason(module, key) if module else None
    if key in READ_ONLY_LISTED or key in ATTRIBUTE_ONLY or _name_reason(key) or reason:
        yield f"a namespace looked up for {key[:40]!r}", _name_reason(key) or reason or PROCESS


def _namespace_owner(node: ast.AST) -> Optional[str]:
    """`m` of `vars(m)` or `m.__dict__` (None for `globals()` and anything else)."""
    if isinstance(node, ast.Attribute):
        return node.value.id if isinstance(node.value, ast.Name) else None
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
        return node.args[0].id
    return None


def _computed_string_constructs(text: str) -> Iterable[tuple]:
    """A string *built* at run time from literals that names a listed module, attribute or grader name
    (`'MODULES'.lower()`, `'_channel'.upper()`, `'cg'[::-1]`): no valid solution spells a name that way."""
    name = text.strip()
    if name in READ_ONLY_LISTED or name in ATTRIBUTE_ONLY or name in MODULES or name in LISTED_ATTRIBUTE_NAMES:
        yield f"the string {name[:40]!r} built at run time", PROCESS
    elif name.upper() in GRADER_NAMES or name in GRADER_NAMES:
        yield f"the string {name[:40]!r} built at run time", GRADER


def _attribute_constructs(node: ast.Attribute, aliases: dict) -> Iterable[tuple]:
    owner = node.value.id if isinstance(node.value, ast.Name) else None
    module = aliases.get(owner, owner) if owner else None
    reason = _attribute_reason(module, node.attr) if module else None
    if reason:
        yield f"{owner}.{node.attr}", reason
    elif node.attr == "__dict__" and module in INTERPRETER_MODULES and not _subscripted(node):
        yield f"{owner}.__dict__ (the namespace of {module})", PROCESS
    elif module and owner_module(module) in MODULES and node.attr in INTROSPECTION_FUNCTIONS:
        return  # `gc.get_objects` of an `import gc` already listed: the import says it
    elif _name_reason(node.attr):
        yield f".{node.attr}", _name_reason(node.attr)
    elif (node.attr in READ_ONLY_LISTED and not _called(node)) or node.attr in ATTRIBUTE_ONLY:
        yield f".{node.attr}", PROCESS


def owner_module(module: str) -> str:
    """The top-level module of a dotted name (`os.path` -> `os`)."""
    return module.partition(".")[0]


def _namespace(node: ast.AST) -> bool:
    """`x.__dict__`, `vars(x)`, `globals()`, `locals()`: a mapping of names to objects."""
    if isinstance(node, ast.Attribute):
        return node.attr == "__dict__"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in ("vars", "globals", "locals")


def _called(node: ast.Attribute) -> bool:
    parent = getattr(node, "_screen_parent", None)
    return isinstance(parent, ast.Call) and parent.func is node


def _called_directly(node: ast.Name) -> bool:
    """`getattr(...)` itself (not `g = getattr`, `partial(getattr, x)`, `getattr.__call__(...)`)."""
    parent = getattr(node, "_screen_parent", None)
    return isinstance(parent, ast.Call) and parent.func is node


def _subscripted(node: ast.AST) -> bool:
    """`node[key]` or `node.get(key)`...: a lookup the namespace rules judge by its key."""
    parent = getattr(node, "_screen_parent", None)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return True
    return isinstance(parent, ast.Attribute) and parent.attr in NAMESPACE_METHODS


def _name_reason(name: str) -> Optional[str]:
    """Why an attribute, name or string naming `name` is listed (None: an ordinary name)."""
    if name in GRADER_NAMES:
        return GRADER
    if name in INTROSPECTION:
        return PROCESS
    if len(name) > 4 and name.startswith("__") and name.endswith("__") and name not in ORDINARY_DUNDERS:
        return PROCESS
    return None


def _string_constructs(text: str) -> Iterable[tuple]:
    hit = next((s for s in GRADER_STRINGS if s in text), None)
    if hit:
        yield f"the string {hit!r}", GRADER
    elif _name_reason(text.strip()):
        yield f"the string {text.strip()[:40]!r}", _name_reason(text.strip())


def _folded(node: ast.AST) -> Optional[str]:
    """The value of a string literal, of literals joined with `+`, or of an f-string without fields."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded(node.left), _folded(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [_folded(v) for v in node.values]
        known = [p for p in parts if p is not None]
        return "".join(known) if len(known) == len(parts) else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):  # `'seludom'[::-1]`
        return _sliced(_folded(node.value), node.slice)
    if isinstance(node, ast.Call) and not node.keywords:
        return _folded_call(node)
    return None


def _sliced(text: Optional[str], part: ast.Slice) -> Optional[str]:
    bounds: List[Optional[int]] = []
    for value in (part.lower, part.upper, part.step):
        if value is None:
            bounds.append(None)
        elif isinstance(value, ast.Constant) and _int_like(value):
            bounds.append(int(value.value))  # type: ignore[arg-type]
        elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and _int_like(value.operand):
            bounds.append(-int(value.operand.value))  # type: ignore[attr-defined]
        else:
            return None
    if text is None or bounds[2] == 0:
        return None
    return text[slice(*bounds)]


def _folded_call(node: ast.Call) -> Optional[str]:
    """`'X'.lower()`, `''.join(['mod', 'ules'])`, `'{}{}'.format('a', 'b')`, `chr(103)`: literals only."""
    if isinstance(node.func, ast.Name) and node.func.id == "chr" and len(node.args) == 1 and _int_like(node.args[0]):
        code = node.args[0].value  # type: ignore[attr-defined]
        return chr(code) if 0 <= code < 0x110000 else None
    if not (isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS):
        return None
    owner = _folded(node.func.value)
    if owner is None or len(owner) > 200:
        return None
    if node.func.attr == "join" and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
        parts = [_folded(e) for e in node.args[0].elts]
        return owner.join(p for p in parts if p is not None) if None not in parts else None
    args = [_folded(a) for a in node.args]
    if None in args or node.func.attr == "join":
        return None
    try:
        return str(getattr(owner, node.func.attr)(*args))
    except (TypeError, ValueError, IndexError, KeyError):
        return None


def _call_constructs(node: ast.Call, aliases: dict) -> Iterable[tuple]:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    spread = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
    if name in ("getattr", "setattr", "delattr") and (spread or len(node.args) < 2):
        yield f"{name}(<arguments built at run time>)", DYNAMIC
    elif name in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2:
        attr = _folded(node.args[1])
        if attr is None:
            yield f"{name}(..., <computed name>)", DYNAMIC
        elif _name_reason(attr) or attr in READ_ONLY_LISTED:
            yield f"{name}(..., {attr[:40]!r})", PROCESS
        elif isinstance(node.args[0], ast.Name) and _attribute_reason(aliases.get(node.args[0].id), attr):
            yield f"{name}({node.args[0].id}, {attr[:40]!r})", _attribute_reason(aliases.get(node.args[0].id), attr)
    elif name == "vars" and node.args and isinstance(node.args[0], ast.Name) \
            and aliases.get(node.args[0].id) in INTERPRETER_MODULES and not _subscripted(node):
        yield f"vars({node.args[0].id}) (the namespace of {aliases[node.args[0].id]})", PROCESS
    elif isinstance(node.func, ast.Attribute) and node.func.attr in NAMESPACE_METHODS and _namespace(node.func.value):
        yield from _namespace_lookup(node.func.value, node.args[0] if node.args else None, aliases)
    elif name == "open" and node.args and _int_like(node.args[0]):
        yield "open(<file descriptor>)", SYSTEM
    elif name == "open" and node.args and not _literal(node.args[0]):
        yield "open(<computed path>)", FILES
    elif isinstance(node.func, ast.Attribute) and node.func.attr in FILE_METHODS and not _literal_path(node):
        yield f".{node.func.attr}(...)", FILES


def _attribute_reason(owner: Optional[str], attr: str) -> Optional[str]:
    if owner is None:  # every listed attribute has its module
        return None
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
        shown = ", ".join(list(constructs)[:SHOWN]) + (", ..." if len(constructs) > SHOWN else "")
        numbered = [n for n in lines if n]  # line 0: the whole file (the screen could not analyse it)
        if not numbered:
            summary.append(f"{file}: {reason} ({shown})")
            continue
        shown_lines = ", ".join(str(n) for n in numbered[:SHOWN]) + (", ..." if len(numbered) > SHOWN else "")
        word = "line" if len(numbered) == 1 else "lines"
        summary.append(f"{file}, {word} {shown_lines}: {reason} ({shown})")
    return summary


def screen_submission(staged: Iterable[tuple]) -> List[str]:
    """The summary lines of every (staged path, shown name) pair, each file once."""
    findings: List[Finding] = []
    for path, shown_as in dict.fromkeys(staged):
        findings.extend(screen_file(path, shown_as))
    return summarise(findings)
