"""The declared schema of the course's configuration: `problems/<id>/problem.toml` and `problems/offerings.toml`.

Every key is declared once, here, with its type, whether it is required and what it must satisfy. Loading
(graders.spec, graders.offering) refuses a file that breaks it, and `autograde check-problems`
(graders.problemlint) reports the same messages as findings. Each message names the file, the table, the key,
what was expected and what was found:

    problems/autodiff/problem.toml: [[tests]] #3 'points': expected a number, got "two"
    problems/autodiff/problem.toml: [limits] 'wall_seconds': must be > 0, got -5
    problems/offerings.toml: [offerings.s26] 'points': unknown key (known: drop, drop_symbols, ...)

A `[[tests]]` entry's keys besides the declared ones are its judge's options: those the judge reads
(graders.judgescan), a number where the judge reads one as a number. A test whose judge is not found keeps its
options unchecked (check-problems and grading name the judge instead).

Declared in Python rather than a JSON Schema: the messages are in the terms of the TOML file ('[[tests]] #3'),
a test's allowed keys depend on its judge, and no dependency is needed where the grader runs (Gradescope).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .judgescan import NUMBER, JudgesUnreadable, judges
from .limits import PROBLEM_LIMITS, Limits


class SpecError(ValueError):
    """A problem.toml or offerings.toml is malformed (the message names the file and the key)."""


# ------------------------------------------------------------------ issues: where in a file, and what


@dataclass(frozen=True)
class Issue:
    """One breach of the schema: the table it is in, the key, and what is wrong."""

    #: the TOML table holding the key: () for the top level, ("limits",), ("offerings", "s26"), ("tests", 2)
    #: for the third [[tests]] entry
    table: Tuple[Any, ...]
    #: the key in that table; dotted inside an inline table (("problems", "autodif"))
    key: Tuple[str, ...]
    #: what is wrong ("expected a number, got \"two\"")
    what: str

    @property
    def header(self) -> str:
        """The table as the file writes it: '', '[limits]', '[offerings.s26]', '[[tests]] #3'."""
        if not self.table:
            return ""
        if isinstance(self.table[-1], int):
            return f"[[{'.'.join(self.table[:-1])}]] #{self.table[-1] + 1}"
        return f"[{'.'.join(self.table)}]"

    def __str__(self) -> str:
        key = f"'{'.'.join(self.key)}': {self.what}"
        return f"{self.header} {key}" if self.table else key


def described(path: Path, issues: Sequence[Issue]) -> str:
    """The message of a SpecError for `issues` of the file `path`: one line each, each naming the file."""
    return "\n".join(f"{path}: {issue}" for issue in issues)


def shown(value: Any) -> str:
    """A found value as the TOML file writes it (strings quoted), a table or a list said in words when long."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 80 else text[:76] + '..."'
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        if any(isinstance(v, (dict, list)) for v in value):
            return "a list"
        text = "[" + ", ".join(shown(v) for v in value) + "]"
        return text if len(text) <= 80 else "a list"
    return f"a {type(value).__name__}"  # TOML dates and times


@dataclass(frozen=True)
class At:
    """Where a value sits while it is checked: its table and its key (see Issue)."""

    table: Tuple[Any, ...] = ()
    key: Tuple[Any, ...] = ()

    def issue(self, what: str) -> Issue:
        return Issue(self.table, self.key, what)

    def inner(self, key: Any) -> At:
        """A key of an inline table (or an item of a list) at this place."""
        return At(self.table, self.key + (key,))

    def opened(self) -> At:
        """Inside the table at this place, as a TOML table of its own ([swap], [offerings.s26], [[tests]] #3)."""
        return At(self.table + self.key, ())


# ------------------------------------------------------------------ value types


class Type:
    """A declared value type: what is expected, said in the file author's words."""

    #: e.g. "a number", "a list of strings"
    expected: str = "a value"
    #: the Python types TOML gives for it (a value of another type is the wrong type)
    python: Tuple[type, ...] = (object,)

    def fits(self, value: Any) -> bool:
        """The value is of this type's shape (not yet checked against its constraints); a boolean is no number."""
        if isinstance(value, bool):
            return bool in self.python or object in self.python
        return isinstance(value, self.python)

    def issues(self, value: Any, at: At) -> List[Issue]:
        if not self.fits(value):
            return [at.issue(f"expected {self.expected}, got {shown(value)}")]
        return self.constraint(value, at)

    def constraint(self, value: Any, at: At) -> List[Issue]:
        """Issues of a value of the right shape (none by default)."""
        return []


class Anything(Type):
    """Any value (the options of a judge that reads them as it likes)."""


class Text(Type):
    expected, python = "a string", (str,)

    def __init__(self, choices: Sequence[str] = (), check: Optional[Callable[[str], Optional[str]]] = None):
        self.choices = tuple(choices)
        self.check = check
        if self.choices:
            self.expected = "one of " + ", ".join(self.choices)

    def constraint(self, value: Any, at: At) -> List[Issue]:
        if self.choices and value not in self.choices:
            return [at.issue(f"expected {self.expected}, got {shown(value)}")]
        problem = self.check(value) if self.check else None
        return [at.issue(problem)] if problem else []


class Number(Type):
    """A finite number (integer or float; never a boolean); `integer`: an integer only; `positive`: > 0."""

    def __init__(self, positive: bool = False, integer: bool = False):
        self.positive = positive
        self.expected = "an integer" if integer else "a number"
        self.python = (int,) if integer else (int, float)

    def constraint(self, value: Any, at: At) -> List[Issue]:
        if isinstance(value, float) and not math.isfinite(value):
            return [at.issue(f"expected a finite number, got {shown(value)}")]
        if self.positive and not value > 0:
            return [at.issue(f"must be > 0, got {shown(value)}")]
        return []


class Strings(Type):
    """A list of strings; `nonempty`: at least one; `check`: what is wrong with one of them, or None."""

    python = (list,)

    def __init__(self, nonempty: bool = False, check: Optional[Callable[[str], Optional[str]]] = None):
        self.nonempty, self.check = nonempty, check
        self.expected = "a non-empty list of strings" if nonempty else "a list of strings"

    def constraint(self, value: Any, at: At) -> List[Issue]:
        if self.nonempty and not value:
            return [at.issue(f"expected {self.expected}, got []")]
        wrong = [v for v in value if not isinstance(v, str)]
        if wrong:
            return [at.issue(f"expected {self.expected}, got {shown(wrong[0])} in it")]
        problems = [self.check(v) for v in value] if self.check else []
        return [at.issue(p) for p in problems if p]


@dataclass(frozen=True)
class Key:
    """A declared key of a table."""

    type: Type
    required: bool = False


@dataclass(frozen=True)
class Options:
    """The keys a table accepts besides its declared ones (a test's judge options): name -> type."""

    types: Mapping[str, Type]
    #: what they are, for the message about a key that is not one ("the options judge 'x' reads: a, b")
    described: str


class Table(Type):
    """A table with declared keys, no other unless `options(table)` (called with the table) declares them; when
    `options` returns None, any other key is accepted unchecked."""

    expected, python = "a table", (dict,)

    def __init__(self, keys: Mapping[str, Key], options: Optional[Callable[[dict], Optional[Options]]] = None):
        self.keys, self.options = dict(keys), options

    def constraint(self, value: Any, at: At) -> List[Issue]:
        inside = at.opened()
        extra = self.options(value) if self.options else None
        found: List[Issue] = []
        for key, item in value.items():
            declared = self.keys.get(key)
            if declared is not None:
                found += declared.type.issues(item, inside.inner(key))
            elif extra is not None and key in extra.types:
                found += extra.types[key].issues(item, inside.inner(key))
            elif self.options is None or extra is not None:
                known = ", ".join(sorted(self.keys))
                also = f"; {extra.described}" if extra is not None else ""
                found.append(inside.inner(key).issue(f"unknown key (known: {known}{also})"))
        found += [inside.inner(key).issue(f"missing (required: {k.type.expected})")
                  for key, k in self.keys.items() if k.required and key not in value]
        return found


class Tables(Type):
    """An array of tables (`[[tests]]`), each of `table`; `unique`: a key no two entries share."""

    python = (list,)

    def __init__(self, table: Table, unique: str = ""):
        self.table, self.unique = table, unique
        self.expected = "an array of tables ([[...]])"

    def constraint(self, value: Any, at: At) -> List[Issue]:
        found: List[Issue] = []
        first: Dict[Any, int] = {}
        for i, entry in enumerate(value):
            if not isinstance(entry, dict):
                found.append(at.issue(f"entry #{i + 1}: expected a table, got {shown(entry)}"))
                continue
            found += self.table.issues(entry, at.inner(i))
            mark = entry.get(self.unique) if self.unique else None
            if isinstance(mark, str):
                if mark in first:
                    head = Issue(at.table + at.key + (first[mark],), (), "").header
                    found.append(At(at.table + at.key + (i,), (self.unique,)).issue(
                        f"duplicate {self.unique} {shown(mark)} (also {head})"))
                first.setdefault(mark, i)
        return found


class Each(Type):
    """A table of any keys (problem ids, kinds), every value of `value`; `section`: its keys are the keys of a
    TOML table ([visibility] 'unit'), else dotted under it ('problems.autodiff')."""

    expected, python = "a table", (dict,)

    def __init__(self, value: Type, expected: str, section: bool = False):
        self.value, self.section, self.expected = value, section, expected

    def constraint(self, value: Any, at: At) -> List[Issue]:
        place = at.opened() if self.section else at
        return [issue for key, item in value.items() for issue in self.value.issues(item, place.inner(key))]


class Either(Type):
    """One of several types, picked by the shape of the value."""

    def __init__(self, types: Sequence[Type], expected: str):
        self.types, self.expected = tuple(types), expected
        self.python = tuple(p for t in types for p in t.python)

    def constraint(self, value: Any, at: At) -> List[Issue]:
        return next(t for t in self.types if t.fits(value)).issues(value, at)


def check(value: dict, schema: Table) -> List[Issue]:
    """Every breach of `schema` by a parsed file, in the file's order (missing keys after a table's others)."""
    return schema.constraint(value, At())


# ------------------------------------------------------------------ problems/<id>/problem.toml


#: Gradescope's visibility values (results.json): always, never, after the due date, once grades are published
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
VISIBILITY = Text(choices=VISIBILITIES)


def symbol_names(symbol: str) -> Tuple[str, ...]:
    """The alternatives of a swap symbol, canonical first: ``"a|b"`` -> ``("a", "b")``."""
    return tuple(name.strip() for name in symbol.split("|"))


def _symbol_problem(symbol: str) -> Optional[str]:
    names = symbol_names(symbol)
    if all(n and all(part.isidentifier() for part in n.split(".")) for n in names):
        return None
    return f"bad symbol {shown(symbol)} (dotted names, alternatives separated by '|')"


SWAP = Table({
    "file": Key(Text(), required=True),  # the student file, relative to the submission root
    "module": Key(Text(), required=True),  # the reference module it corresponds to
    "symbols": Key(Strings(nonempty=True, check=_symbol_problem), required=True),
    "inject": Key(Strings()),
})

LIMITS = Table({
    f.name: Key(Number(positive=True, integer=isinstance(f.default, int)))
    for f in dataclasses.fields(Limits) if f.name in PROBLEM_LIMITS
})

#: the declared keys of a [[tests]] entry (its other keys are its judge's options)
TEST_KEYS = {
    "id": Key(Text(), required=True),
    "name": Key(Text()),
    "probe": Key(Text()),
    "kind": Key(Text(), required=True),
    "points": Key(Number(positive=True), required=True),
    "judge": Key(Text()),
    "visibility": Key(VISIBILITY),
}

#: the judge of a test that names none
DEFAULT_JUDGE = "allclose"


def _judge_options(folder: Path) -> Callable[[dict], Optional[Options]]:
    """The options a [[tests]] entry of the problem in `folder` may set: those its judge reads."""

    def options(test: dict) -> Optional[Options]:
        if set(test) <= set(TEST_KEYS):
            return Options({}, "")  # no option to look up (the judge's source is not read)
        name = test.get("judge", DEFAULT_JUDGE)
        try:
            source = judges(folder).get(name) if isinstance(name, str) else None
        except JudgesUnreadable:
            source = None
        if source is None:
            return None  # an unknown judge: its options are unchecked (check-problems names the judge)
        types = {option: Number() if kind == NUMBER else Anything() for option, kind in source.options.items()}
        reads = ", ".join(sorted(types)) or "none"
        return Options(types, f"options judge '{name}' reads: {reads}")

    return options


def problem_schema(folder: Path) -> Table:
    """The schema of `folder/problem.toml` (a test's options depend on the problem's judges)."""
    return Table({
        "id": Key(Text(), required=True),
        "title": Key(Text()),
        "order": Key(Number(integer=True)),
        "reread": Key(Text()),
        "visibility": Key(VISIBILITY),
        "swap": Key(SWAP, required=True),
        "limits": Key(LIMITS),
        "tests": Key(Tables(Table(TEST_KEYS, options=_judge_options(folder)), unique="id")),
    })


def problem_issues(raw: dict, folder: Path) -> List[Issue]:
    """Every breach of the problem.toml schema by the parsed `folder/problem.toml`."""
    return check(raw, problem_schema(folder))


# ------------------------------------------------------------------ problems/offerings.toml

#: `problems = "*"`: the offering grades every problem folder, each at the sum of its tests' points
EVERY_PROBLEM = "*"

OFFERING = Table({
    "title": Key(Text()),  # shown in reports
    "starter": Key(Text()),  # the course's starter this offering follows (documentation)
    "problems": Key(Either([Text(choices=[EVERY_PROBLEM]),
                            Each(Number(positive=True), "a table of problem id = points")],
                           expected=f'"{EVERY_PROBLEM}" or a table of problem id = points'), required=True),
    "drop": Key(Each(Strings(), "a table of problem id = [test ids]")),
    "drop_symbols": Key(Each(Strings(), "a table of problem id = [swap symbols]")),
    "markers": Key(Each(Text(), "a table of problem id = marker name")),
})

#: `[visibility]`: `default = ...` and one `<kind> = ...` per kind of test
COURSE_VISIBILITY = Each(VISIBILITY, "a table of kind = visibility", section=True)

OFFERINGS = Table({
    "default": Key(Text(), required=True),
    "visibility": Key(COURSE_VISIBILITY),
    "offerings": Key(Each(OFFERING, "a table of offerings ([offerings.<id>])"), required=True),
})


def offerings_issues(raw: dict) -> List[Issue]:
    """Every breach of the offerings.toml schema by the parsed file (what it says of problems is checked
    against them by graders.offering)."""
    return check(raw, OFFERINGS)


def visibility_issues(raw: dict) -> List[Issue]:
    """Breaches of the schema in the `[visibility]` table of a parsed offerings.toml only."""
    return COURSE_VISIBILITY.issues(raw["visibility"], At((), ("visibility",))) if "visibility" in raw else []


# ------------------------------------------------------------------ where an issue is in the file


def _header_pattern(table: Tuple[Any, ...]) -> re.Pattern[str]:
    if isinstance(table[-1], int):
        return re.compile(r"\s*\[\[\s*" + r"\s*\.\s*".join(map(re.escape, table[:-1])) + r"\s*\]\]")
    return re.compile(r"\s*\[\s*" + r"\s*\.\s*".join(re.escape(str(p)) for p in table) + r"\s*\]")


def line_of(text: str, issue: Issue) -> Optional[int]:
    """The line (1-based) of the issue's key in the file's text, else of its table's header, else None."""
    lines = text.splitlines()
    start, header = 0, None
    if issue.table:
        pattern = _header_pattern(issue.table)
        skip = issue.table[-1] if isinstance(issue.table[-1], int) else 0
        starts = [number for number, line in enumerate(lines) if pattern.match(line)]
        if len(starts) <= skip:
            return None  # written inline (offerings = { ... }): no line of its own
        start = starts[skip] + 1
        header = start
    if issue.key:
        wanted = re.compile(r"\s*[\"']?" + re.escape(str(issue.key[0])) + r"[\"']?\s*[=.]")
        for number in range(start, len(lines)):
            if lines[number].lstrip().startswith("["):
                break  # the next table
            if wanted.match(lines[number]):
                return number + 1
    return header
