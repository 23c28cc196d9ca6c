"""Problem specifications: one `problems/<id>/problem.toml` per problem.

A problem is added by adding a folder; nothing in the grader names problems.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Mapping, Optional, Tuple

from . import paths, toml
from .judgescan import judges_stamp
from .limits import Limits
from .schema import DEFAULT_JUDGE, TEST_KEYS, SpecError, described, problem_issues, symbol_names, visibility_issues


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
    judge: str = DEFAULT_JUDGE
    #: judge options (tolerances, thresholds...)
    options: Dict[str, object] = field(default_factory=dict)
    #: when Gradescope shows the test to students (one of graders.schema.VISIBILITIES): its own `visibility`, else its
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


#: kinds whose tests check hidden properties (work, stack depth, held-out accuracy): shown after the due date
#: unless the course (problems/offerings.toml [visibility]), the problem or the test says otherwise
HIDDEN_KINDS = ("complexity", "recursion", "accuracy")


@dataclass(frozen=True)
class CourseVisibility:
    """The course's default visibility of tests, by kind (`[visibility]` of problems/offerings.toml)."""

    #: for kinds not in `by_kind`
    default: str = "visible"
    #: kind -> visibility
    by_kind: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(HIDDEN_KINDS, "after_due_date"))

    def for_kind(self, kind: str) -> str:
        """The visibility of a test of `kind` that neither it nor its problem sets."""
        return self.by_kind.get(kind, self.default)


def course_visibility(root: Optional[Path] = None) -> CourseVisibility:
    """The `[visibility]` table of `root/offerings.toml` (default root: problems/): `default = ...` and one
    `<kind> = ...` per kind. No file or no table: CourseVisibility() (the hidden kinds after the due date).
    A table replaces those defaults whole: kinds it does not list get its `default` (else "visible")."""
    path = (root or paths.PROBLEMS) / "offerings.toml"
    if not path.is_file():
        return CourseVisibility()
    return _parsed_visibility(path, read_text(path))


@lru_cache(maxsize=16)
def _parsed_visibility(path: Path, text: str) -> CourseVisibility:
    """The course's visibility of an offerings.toml (`path`) that reads `text` (kept per version of the file)."""
    raw = parse_toml(path, text)
    issues = visibility_issues(raw)
    if issues:
        raise SpecError(described(path, issues))
    if "visibility" not in raw:
        return CourseVisibility()
    values = dict(raw["visibility"])
    default = values.pop("default", "visible")
    return CourseVisibility(default, values)


def read_toml(path: Path) -> dict:
    """The parsed TOML file `path`; a SpecError naming the file when it cannot be read or parsed."""
    return parse_toml(path, read_text(path))


def read_text(path: Path) -> str:
    """The text of `path`; a SpecError naming the file when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: {exc}") from exc


def parse_toml(path: Path, text: str) -> dict:
    """`text` (the file `path`) parsed as TOML; a SpecError naming the file when it does not parse."""
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise SpecError(f"{path}: {exc}") from exc


def load_problem(folder: Path, course: Optional[CourseVisibility] = None) -> ProblemSpec:
    """Parse `folder/problem.toml` into a ProblemSpec; a file that breaks its schema (graders.schema) is a
    SpecError naming the file and each key.

    Each test's visibility is resolved here: the test's `visibility` key, else the problem's top-level
    `visibility`, else `course` (default: `course_visibility(folder.parent)`) for the test's kind.
    """
    course = course if course is not None else course_visibility(folder.parent)
    visibility = (course.default, tuple(sorted(course.by_kind.items())))
    return _parsed_problem(folder, read_text(folder / "problem.toml"), judges_stamp(folder), visibility)


@lru_cache(maxsize=64)
def _parsed_problem(folder: Path, text: str, judges: tuple, visibility: tuple) -> ProblemSpec:
    """The ProblemSpec of `folder` whose problem.toml reads `text`, checked against the builtin judges and those
    of its judges.py (`judges`: those files' stamps, graders.judgescan), each test's visibility resolved with the
    course's (`visibility`: default, (kind, visibility) pairs).

    Kept per version of these: a batch's every grading, and every command, loads the specs several times (parsing
    and checking the seven files took about 15 ms each time). A SpecError is raised again every time (lru_cache
    keeps no exception). A ProblemSpec is frozen; nothing writes to its tests' options."""
    path = folder / "problem.toml"
    raw = parse_toml(path, text)
    issues = problem_issues(raw, folder)
    if issues:
        raise SpecError(described(path, issues))
    course = CourseVisibility(visibility[0], dict(visibility[1]))
    swap = raw["swap"]
    tests = tuple(
        TestSpec(
            id=t["id"],
            name=t.get("name", t["id"]),
            probe=t.get("probe", t["id"]),
            kind=t["kind"],
            points=float(t["points"]),
            judge=t.get("judge", DEFAULT_JUDGE),
            options={k: v for k, v in t.items() if k not in TEST_KEYS},
            visibility=t.get("visibility") or raw.get("visibility") or course.for_kind(t["kind"]),
        )
        for t in raw.get("tests", [])
    )
    defaults = Limits()
    limits = Limits(**{key: type(getattr(defaults, key))(value) for key, value in raw.get("limits", {}).items()})
    return ProblemSpec(
        id=raw["id"],
        title=raw.get("title", folder.name),
        order=raw.get("order", 100),
        folder=folder,
        swap=SwapSpec(swap["file"], swap["module"], tuple("|".join(symbol_names(s)) for s in swap["symbols"]),
                      tuple(swap.get("inject", ()))),
        tests=tests,
        limits=limits,
        reread=raw.get("reread", ""),
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
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a module", path=str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
