"""Fingerprints of one Python file: normalised AST tokens, cut into units, k-grams, winnowing.

Contract:

- `units_of(text, file)` parses `text` (it must compile: intake has checked it) and returns its units
  with their tokens: one per function or method (nested functions stay in theirs), one per class for
  the class's other statements, and one, `<module>`, for the module's other statements. A unit's
  tokens come from a pre-order walk of its syntax tree with every name, attribute, argument and
  keyword name replaced by its node type, numbers and strings by their type, and docstrings, bare
  string statements, `pass` and type annotations left out. Renaming, comments, docstrings,
  formatting, annotations and the order of functions therefore change nothing; every token keeps the
  source line it came from.
- `kgram_hashes(tokens, k)` hashes every run of `k` consecutive tokens (deterministic across processes:
  a tuple of ints hashes the same everywhere).
- `winnow(hashes, w, excluded)` keeps, in every window of `w` consecutive k-gram hashes, the smallest
  one not in `excluded` (the rightmost on ties), each position once: Schleimer, Wilkerson and Aiken's
  winnowing. Two units sharing a run of at least `k + w - 1` tokens (not made of excluded k-grams)
  share a fingerprint; a run shorter than `k` is never seen.
- `fingerprint_file(text, file, k, w, excluded, cache)` puts the three together: the units that have
  fingerprints, and the fingerprints, each located by unit and line range. A unit whose source text
  is in `cache` (the same function in another submission, the template's functions) is not walked
  again: its fingerprints only depend on that text.
"""

from __future__ import annotations

import ast
import zlib
from dataclasses import dataclass, field
from typing import Collection, Dict, List, Optional, Sequence, Tuple, Type

from ..intake import parse_python
from .normalise import normalise

#: Node types never emitted: load/store context markers carry nothing the statement does not say, and
#: `pass` does nothing (a body that was only a docstring often becomes `pass` in a copy).
SILENT = {ast.Load, ast.Store, ast.Del, ast.Pass}
#: Fields left out of the walk: type annotations (adding or removing type hints is formatting).
ANNOTATION_FIELDS = {"annotation", "returns", "type_comment", "type_params"}


@dataclass
class Unit:
    """One function, method, class body or module body of a student file: fingerprints never cross units."""

    #: the contract path of the file it is in
    file: str
    #: dotted name: `a_function`, `AClass.method`, `AClass` (the class's other statements),
    #: `<module>` (the module's other statements)
    name: str
    #: (first, last) source lines of its statements, in order
    spans: List[Tuple[int, int]] = field(default_factory=list)

    @property
    def first_line(self) -> int:
        return self.spans[0][0] if self.spans else 0


@dataclass(frozen=True)
class Fingerprint:
    """One winnowed k-gram of a unit."""

    hash: int
    #: index of the unit in its file's unit list
    unit: int
    first_line: int
    last_line: int


@dataclass
class FilePrints:
    """The units of a file that have fingerprints, and the fingerprints."""

    file: str
    units: List[Unit]
    prints: List[Fingerprint]


#: unit source key -> its fingerprints as (hash, first line, last line) relative to the unit's first line;
#: valid for one k, w and excluded set, i.e. for one screening
UnitCache = Dict[tuple, List[Tuple[int, int, int]]]


def token_id(name: str) -> int:
    """A token's id: the same in every process and run (unlike `hash` of a string)."""
    return zlib.crc32(name.encode("ascii"))


_TOKEN_IDS: Dict[object, int] = {}
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _token(node: ast.AST) -> str:
    """The normalised token of one node: its type, plus the kind of value for constants."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, bool):
            return f"Constant:{value!r}"
        return f"Constant:{'num' if isinstance(value, (int, float, complex)) else type(value).__name__}"
    if isinstance(node, ast.AnnAssign):
        return "Assign"
    return type(node).__name__


def _token_of(node: ast.AST) -> int:
    """The id of `_token(node)`, cached per node type (and per constant kind)."""
    cls = type(node)
    key: object = cls
    if isinstance(node, ast.Constant):
        value = node.value
        key = value if value is None or type(value) is bool else type(value)
        key = ("constant", key)
    tid = _TOKEN_IDS.get(key)
    if tid is None:
        tid = _TOKEN_IDS[key] = token_id(_token(node))
    return tid


def _fields(cls: Type[ast.AST]) -> Tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(n for n in cls._fields if n not in ANNOTATION_FIELDS)
    return names


def _is_docstring(node: ast.AST) -> bool:
    """A bare string statement (docstrings and string 'comments'): never code."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def tokens_of(roots: Sequence[ast.AST]) -> Tuple[List[int], List[int]]:
    """(token ids, their source lines) of the pre-order walk of `roots`, without annotations, docstrings
    and context markers (an explicit stack: no recursion limit)."""
    tokens: List[int] = []
    lines: List[int] = []
    stack: List[Tuple[ast.AST, int]] = [(root, getattr(root, "lineno", 0)) for root in reversed(roots)]
    pop, push = stack.pop, stack.append
    while stack:
        node, parent_line = pop()
        cls = type(node)
        if isinstance(node, ast.AnnAssign) and node.value is None:
            continue  # `x: int` alone declares a type, nothing runs
        here = getattr(node, "lineno", None) or parent_line
        tokens.append(_token_of(node))
        lines.append(here)
        children: List[ast.AST] = []
        for name in _fields(cls):
            value = getattr(node, name, None)
            if type(value) is list:
                children.extend(item for item in value if isinstance(item, ast.AST) and type(item) not in SILENT
                                and not _is_docstring(item))
            elif isinstance(value, ast.AST) and type(value) not in SILENT:
                children.append(value)
        for child in reversed(children):
            push((child, here))
    return tokens, lines


def _span(node: ast.stmt) -> Tuple[int, int]:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first, getattr(node, "end_lineno", None) or node.lineno


def _header_span(node: ast.ClassDef) -> Tuple[int, int]:
    """A class header's lines: its decorators to the last line of its bases and keywords (a header written over
    several lines is all in the unit's text, so that the cache of units, keyed by that text, never answers for
    another header)."""
    parts = [*node.bases, *node.keywords]
    return _span(node)[0], max([node.lineno] + [getattr(p, "end_lineno", None) or node.lineno for p in parts])


def split_units(body: Sequence[ast.stmt], file: str, prefix: str = "",
                rest: Optional[Tuple[Unit, List[ast.AST]]] = None) -> List[Tuple[Unit, List[ast.AST]]]:
    """(unit, its syntax trees) for `body`: a function is a unit of its own, a class's other statements
    are one unit (its methods units of their own), and the other statements of the module are `<module>`."""
    rest = rest or (Unit(file, "<module>"), [])
    out: List[Tuple[Unit, List[ast.AST]]] = [rest] if not prefix else []
    for node in body:
        if _is_docstring(node) or type(node) in SILENT:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((Unit(file, prefix + node.name, [_span(node)]), [node]))
        elif isinstance(node, ast.ClassDef):
            header = ast.ClassDef(name=node.name, bases=node.bases, keywords=node.keywords, body=[],
                                  decorator_list=node.decorator_list, lineno=node.lineno)
            inner: Tuple[Unit, List[ast.AST]] = (Unit(file, prefix + node.name, [_header_span(node)]), [header])
            out.append(inner)
            out.extend(split_units(node.body, file, f"{prefix}{node.name}.", inner))
        else:
            rest[0].spans.append(_span(node))
            rest[1].append(node)
    return out


def _statement_key(stmt: ast.stmt) -> tuple:
    """A statement's normalised tokens: the canonical order of independent statements sorts by them."""
    return tuple(tokens_of([stmt])[0])


def parse_normalised(text: str, file: str) -> Tuple[ast.Module, tuple]:
    """The file's syntax tree with what does not change behaviour taken out (`normalise`), and what the
    file decided for all its units (part of a unit's cache key)."""
    tree = parse_python(text, file)
    return tree, normalise(tree, _statement_key)


def units_of(text: str, file: str) -> List[Tuple[Unit, List[int], List[int]]]:
    """(unit, token ids, token lines) of every unit of a Python file that has tokens."""
    tree, _ = parse_normalised(text, file)
    found = []
    for unit, roots in split_units(tree.body, file):
        tokens, lines = tokens_of(roots)
        if tokens:
            found.append((unit, tokens, lines))
    return found


def kgram_hashes(tokens: Sequence[int], k: int) -> List[int]:
    """The hash of every run of `k` consecutive tokens (none when there are fewer than `k`)."""
    return [hash(tuple(tokens[i : i + k])) for i in range(len(tokens) - k + 1)]


def winnow(hashes: Sequence[int], w: int, excluded: Collection[int] = ()) -> List[int]:
    """Positions of the fingerprints selected by winnowing with window `w` (robust winnowing: the
    rightmost minimum; a position is recorded once even when it stays the minimum of several windows).

    Hashes in `excluded` (code given to everyone) are never selected, and a window holding only
    excluded hashes selects nothing. A sequence shorter than a window is one window.
    """
    inf = float("inf")
    values = [inf if h in excluded else h for h in hashes]
    selected: List[int] = []
    last = -1
    for start in range(max(1, len(values) - w + 1)):
        window = values[start : start + w]
        if not window:
            break
        low = min(window)
        if low == inf:
            continue
        position = start + len(window) - 1 - window[::-1].index(low)
        if position != last:
            selected.append(position)
            last = position
    return selected


def unit_prints(tokens: Sequence[int], lines: Sequence[int], k: int, w: int,
                excluded: Collection[int] = ()) -> List[Tuple[int, int, int]]:
    """(hash, first line, last line) of the winnowed fingerprints of one unit's tokens."""
    hashes = kgram_hashes(tokens, k)
    found = []
    for position in winnow(hashes, w, excluded):
        covered = lines[position : position + k]
        found.append((hashes[position], min(covered), max(covered)))
    return found


def source_lines(text: str) -> List[str]:
    """The lines of `text` as the parser numbers them (only \\n, \\r\\n and \\r end a line: `str.splitlines`
    would also split at form feeds and Unicode separators and shift every line number after them)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _source_key(unit: Unit, source: Sequence[str]) -> tuple:
    """The unit's text, positioned relative to its first line: equal keys, equal fingerprints."""
    first = unit.first_line
    return tuple((a - first, "\n".join(source[a - 1 : b])) for a, b in unit.spans)


def all_kgrams(text: str, file: str, k: int) -> set:
    """Every k-gram hash of a file: the code given to everyone, excluded wherever it appears."""
    found: set = set()
    for _, tokens, _ in units_of(text, file):
        found.update(kgram_hashes(tokens, k))
    return found


def fingerprint_file(text: str, file: str, k: int, w: int, excluded: Collection[int] = (),
                     cache: Optional[UnitCache] = None) -> FilePrints:
    """The units of one student file that have fingerprints, and their fingerprints."""
    tree, context = parse_normalised(text, file)
    source = source_lines(text)
    cache = {} if cache is None else cache
    units: List[Unit] = []
    prints: List[Fingerprint] = []
    for unit, roots in split_units(tree.body, file):
        if not unit.spans:
            continue
        first = unit.first_line
        key = (context, _source_key(unit, source))
        relative = cache.get(key)
        if relative is None:
            tokens, lines = tokens_of(roots)
            found = unit_prints(tokens, lines, k, w, excluded)
            relative = cache[key] = [(h, a - first, b - first) for h, a, b in found]
        if relative:
            prints.extend(Fingerprint(h, len(units), first + a, first + b) for h, a, b in relative)
            units.append(unit)
    return FilePrints(file, units, prints)
