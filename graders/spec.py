"""Problem specifications: one `problems/<id>/problem.toml` per problem.

A problem is added by adding a folder; nothing in the grader names problems.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Mapping, Optional, Tuple

from . import paths, toml
from .limits import PROBLEM_LIMITS, Limits


class SpecError(ValueError):
    """A problem.toml is malformed (the message names the file and the key)."""


@dataclass(frozen=True)
class SwapSpec:
    """Which student code a problem grades."""

    #: path of the student file, relative to the submission root (e.g. ``minitorch/autodiff.py``)
    file: str
    #: the reference module that file corresponds to (e.g. ``minitorch.autodiff``)
    module: str
    #: dotted names taken from the student's module (``a_function``, ``AClass.method``); a symbol may
    #: list alternatives, ``"binary_cross_entropy_loss|cross_entropy_loss"``: the first one the student's
    #: file defines is installed under the first (canonical) name, the reference's
    symbols: Tuple[str, ...]
    #: reference names put into the student's module before swapping (the training loop
    #: is graded driving the reference ``Network``, not the student's)
    inject: Tuple[str, ...] = ()


@dataclass(frozen=True)
class TestSpec:
    """One scored hidden test: a probe, how to judge it and what it is worth."""

    #: stable id, unique within the problem
    id: str
    #: human title shown in reports
    name: str
    #: the probe (function in ``probes.py``) whose output is judged
    probe: str
    #: the contract's kind: gradient, complexity, recursion, accuracy, unit, ...
    kind: str
    points: float
    #: judge name: a builtin of ``graders.judge`` or a function of ``problems/<id>/judges.py``
    judge: str = "allclose"
    #: judge options (tolerances, thresholds...)
    options: Dict[str, object] = field(default_factory=dict)
    #: when Gradescope shows the test to students (one of VISIBILITIES): its own `visibility`, else its
    #: problem's, else the course default for its kind (`CourseVisibility`)
    visibility: str = "visible"


@dataclass(frozen=True)
class ProblemSpec:
    id: str
    title: str
    order: int
    folder: Path
    swap: SwapSpec
    tests: Tuple[TestSpec, ...] = ()
    limits: Limits = Limits()
    reread: str = ""

    @property
    def max_score(self) -> float:
        return round(float(sum(t.points for t in self.tests)), 6)

    def owns(self, file: str, qualname: str) -> bool:
        """True if the code at `qualname` in `file` is this problem's to write (under any alternative name)."""
        if file != self.swap.file:
            return False
        names = (name for symbol in self.swap.symbols for name in symbol_names(symbol))
        return any(qualname == s or qualname.startswith(s + ".") for s in names)


def symbol_names(symbol: str) -> Tuple[str, ...]:
    """The alternatives of a swap symbol, canonical first: ``"a|b"`` -> ``("a", "b")``."""
    return tuple(name.strip() for name in symbol.split("|"))


def _symbols(raw: object, where: str) -> Tuple[str, ...]:
    """`[swap] symbols`: dotted Python names, alternatives separated by `|`."""
    if not isinstance(raw, list) or not raw:
        raise SpecError(f"{where}: 'symbols' must be a non-empty list of strings")
    for symbol in raw:
        names = symbol_names(symbol) if isinstance(symbol, str) else ()
        if not names or not all(n and all(part.isidentifier() for part in n.split(".")) for n in names):
            raise SpecError(f"{where}: bad symbol {symbol!r} (dotted names, alternatives separated by '|')")
    return tuple("|".join(symbol_names(symbol)) for symbol in raw)


#: Gradescope's visibility values (results.json): always, never, after the due date, once grades are published
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
#: kinds whose tests check hidden properties (work, stack depth, held-out accuracy): shown after the due date
#: unless the course (problems/offerings.toml [visibility]), the problem or the test says otherwise
HIDDEN_KINDS = ("complexity", "recursion", "accuracy")


@dataclass(frozen=True)
class CourseVisibility:
    """The course's default visibility of tests, by kind (`[visibility]` of problems/offerings.toml)."""

    #: for kinds not in `by_kind`
    default: str = "visible"
    #: kind -> visibility
    by_kind: Mapping[str, str] = field(default_factory=lambda: {kind: "after_due_date" for kind in HIDDEN_KINDS})

    def for_kind(self, kind: str) -> str:
        """The visibility of a test of `kind` that neither it nor its problem sets."""
        return self.by_kind.get(kind, self.default)


def _visibility(value: object, where: str) -> str:
    """`value` if it is one of Gradescope's visibilities; else a SpecError naming `where`."""
    if not isinstance(value, str) or value not in VISIBILITIES:
        raise SpecError(f"{where}: visibility must be one of {', '.join(VISIBILITIES)}; got {value!r}")
    return value


def course_visibility(root: Optional[Path] = None) -> CourseVisibility:
    """The `[visibility]` table of `root/offerings.toml` (default root: problems/): `default = ...` and one
    `<kind> = ...` per kind. No file or no table: CourseVisibility() (the hidden kinds after the due date).
    A table replaces those defaults whole: kinds it does not list get its `default` (else "visible")."""
    path = (root or paths.PROBLEMS) / "offerings.toml"
    if not path.is_file():
        return CourseVisibility()
    try:
        raw = toml.loads(path.read_text(encoding="utf-8")).get("visibility")
    except (OSError, toml.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: {exc}") from exc
    if raw is None:
        return CourseVisibility()
    if not isinstance(raw, dict):
        raise SpecError(f"{path} [visibility]: expected a table of kind = visibility")
    where = f"{path} [visibility]"
    values = {str(key): _visibility(value, f"{where} {key}") for key, value in raw.items()}
    default = values.pop("default", "visible")
    return CourseVisibility(default, values)


#: keys problem.toml may have at its top level, in [swap], and in a [[tests]] entry besides judge options
TOP_KEYS = frozenset({"id", "title", "order", "reread", "visibility", "swap", "tests", "limits"})
SWAP_KEYS = frozenset({"file", "module", "symbols", "inject"})
TEST_KEYS = frozenset({"id", "name", "probe", "kind", "points", "judge", "visibility"})
LIMIT_KEYS = frozenset(PROBLEM_LIMITS)


def _unknown(table: object, known: frozenset, where: str) -> None:
    """Refuse keys of `table` outside `known` (a misspelled key would otherwise be ignored or fail late)."""
    extra = sorted(set(table) - known) if isinstance(table, dict) else []
    if extra:
        raise SpecError(f"{where}: unknown key '{extra[0]}' (known: {', '.join(sorted(known))})")


def _require(table: dict, key: str, where: str) -> object:
    if key not in table:
        raise SpecError(f"{where}: missing key '{key}'")
    return table[key]


def load_problem(folder: Path, course: Optional[CourseVisibility] = None) -> ProblemSpec:
    """Parse `folder/problem.toml` into a ProblemSpec (clear errors naming the file).

    Each test's visibility is resolved here: the test's `visibility` key, else the problem's top-level
    `visibility`, else `course` (default: `course_visibility(folder.parent)`) for the test's kind.
    """
    path = folder / "problem.toml"
    try:
        raw = toml.loads(path.read_text(encoding="utf-8"))
    except toml.TOMLDecodeError as exc:
        raise SpecError(f"{path}: {exc}") from exc
    where = str(path)
    course = course if course is not None else course_visibility(folder.parent)
    problem_visibility = _visibility(raw["visibility"], where) if "visibility" in raw else None
    _unknown(raw, TOP_KEYS, where)
    swap_raw = _require(raw, "swap", where)
    _unknown(swap_raw, SWAP_KEYS, where + " [swap]")
    _unknown(raw.get("limits", {}), LIMIT_KEYS, where + " [limits]")
    swap = SwapSpec(
        file=str(_require(swap_raw, "file", where + " [swap]")),
        module=str(_require(swap_raw, "module", where + " [swap]")),
        symbols=_symbols(_require(swap_raw, "symbols", where + " [swap]"), where + " [swap]"),
        inject=tuple(swap_raw.get("inject", ())),
    )
    tests = []
    seen = set()
    for i, t in enumerate(raw.get("tests", [])):
        w = f"{where} [[tests]] #{i + 1}"
        tid = str(_require(t, "id", w))
        if tid in seen:
            raise SpecError(f"{w}: duplicate test id '{tid}'")
        seen.add(tid)
        known = TEST_KEYS
        kind = str(_require(t, "kind", w))
        if not float(_require(t, "points", w)) > 0:
            raise SpecError(f"{w}: test '{tid}': points must be positive, got {t['points']}")
        tests.append(
            TestSpec(
                id=tid,
                name=str(t.get("name", tid)),
                probe=str(t.get("probe", tid)),
                kind=kind,
                points=float(_require(t, "points", w)),
                judge=str(t.get("judge", "allclose")),
                options={k: v for k, v in t.items() if k not in known},
                visibility=(_visibility(t["visibility"], w) if "visibility" in t
                            else problem_visibility or course.for_kind(kind)),
            )
        )
    limits = Limits(**raw.get("limits", {}))
    return ProblemSpec(
        id=str(_require(raw, "id", where)),
        title=str(raw.get("title", folder.name)),
        order=int(raw.get("order", 100)),
        folder=folder,
        swap=swap,
        tests=tuple(tests),
        limits=limits,
        reread=str(raw.get("reread", "")),
    )


def load_problems(root: Optional[Path] = None, only: Optional[List[str]] = None) -> List[ProblemSpec]:
    """All problems under `root` (default `problems/`), in their declared order."""
    root = root or paths.PROBLEMS
    course = course_visibility(root)
    specs = [load_problem(d, course) for d in sorted(root.iterdir()) if (d / "problem.toml").is_file()]
    if only:
        unknown = set(only) - {s.id for s in specs}
        if unknown:
            raise SpecError(f"unknown problem id(s): {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s.id in only]
    return sorted(specs, key=lambda s: (s.order, s.id))


@dataclass(frozen=True)
class Visibilities:
    """When Gradescope shows each graded test: looked up by (problem id, test id) in the specs, and for a
    test the specs do not have (a problem since removed), the course default for its kind."""

    #: (problem id, test id) -> visibility
    by_test: Mapping[Tuple[str, str], str]
    course: CourseVisibility = field(default_factory=CourseVisibility)

    def of(self, problem: str, test: str, kind: str) -> str:
        """The visibility of test `test` (of kind `kind`) of problem `problem`."""
        return self.by_test.get((problem, test)) or self.course.for_kind(kind)


def load_visibilities(root: Optional[Path] = None) -> Visibilities:
    """Every test's visibility under `root` (default problems/), as `load_problems` resolves it."""
    root = root or paths.PROBLEMS
    by_test = {(s.id, t.id): t.visibility for s in load_problems(root) for t in s.tests}
    return Visibilities(by_test, course_visibility(root))


def problem_module(problem: ProblemSpec, filename: str) -> Optional[ModuleType]:
    """A parent-side module of the problem's folder (`judges.py`, `figures.py`), imported, or None if absent.

    Imported under `problem_<stem>_<id>` (dataclasses and pickling look modules up by name), once per process.
    """
    path = problem.folder / filename
    if not path.is_file():
        return None
    name = f"problem_{Path(filename).stem}_{problem.id}"
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(path):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
