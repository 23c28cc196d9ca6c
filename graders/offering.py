"""Offerings: which problems a course offering grades, with which points (problems/offerings.toml).

The problems are the same for every offering; an offering selects some of them,
scales each one's tests to the points of the course's handout, and may drop
tests that have no counterpart in that offering (spring 2024/2025 compute the
loss inline, so there is no loss function to test). One place selects it: the
`--offering` option of `grade`, `batch`, `make-template` and `gradescope-zip`,
defaulting to the file's `default`.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import paths, toml
from .spec import ProblemSpec, SpecError, load_problems

OFFERING_KEYS = {"title", "starter", "problems", "drop", "drop_symbols", "markers"}
#: `problems = "*"`: the offering grades every problem folder, each at the sum of its tests' points (a new
#: problem joins it without an edit here)
EVERY_PROBLEM = "*"


@dataclass(frozen=True)
class Offering:
    """One course offering's grading: its problems, their points, the tests it leaves out."""

    #: short id used on the command line and in results (``s26``)
    id: str
    #: shown in reports
    title: str
    #: problem id -> total points of that problem in this offering, in the handout's order
    points: Dict[str, float]
    #: where the course's starter of this offering is (documentation only)
    starter: str = ""
    #: problem id -> ids of tests this offering does not grade
    drop: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    #: problem id -> swap symbols the offering's starter does not have (not asked of the student)
    drop_symbols: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    #: problem id -> the starter's marker name around the student's code (``ASSIGN2_1``)
    markers: Dict[str, str] = field(default_factory=dict)
    #: `problems = "*"`: every problem folder, each at its own points
    every: bool = False

    @property
    def max_score(self) -> float:
        return float(sum(self.points.values()))


def _table(raw: object, where: str) -> dict:
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: expected a table")
    return raw


def _parse_offering(oid: str, raw: object, where: str, known: Dict[str, ProblemSpec]) -> Offering:
    """One `[offerings.<id>]` table, checked against the problems that exist."""
    table = _table(raw, where)
    unknown_keys = set(table) - OFFERING_KEYS
    if unknown_keys:
        raise SpecError(f"{where}: unknown key(s) {', '.join(sorted(unknown_keys))} (allowed: {', '.join(sorted(OFFERING_KEYS))})")
    raw_points = table.get("problems")
    if raw_points == EVERY_PROBLEM:  # every problem folder, at its own points, in problem order
        raw_points = {spec.id: spec.max_score for spec in sorted(known.values(), key=lambda s: (s.order, s.id))}
    points = {}
    for pid, value in _table(raw_points, f"{where}.problems").items():
        if pid not in known:
            raise SpecError(f"{where}.problems: unknown problem '{pid}' (problems: {', '.join(sorted(known))})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise SpecError(f"{where}.problems.{pid}: points must be a number > 0, got {value!r}")
        points[pid] = float(value)
    if not points:
        raise SpecError(f"{where}: grades no problem")
    drop = {}
    for pid, tests in _table(table.get("drop", {}), f"{where}.drop").items():
        if pid not in points:
            raise SpecError(f"{where}.drop: '{pid}' is not one of this offering's problems")
        test_ids = {t.id for t in known[pid].tests}
        bad = [t for t in tests if t not in test_ids]
        if bad or not isinstance(tests, list):
            raise SpecError(f"{where}.drop.{pid}: unknown test id(s) {bad or tests!r}")
        if set(tests) >= test_ids:
            raise SpecError(f"{where}.drop.{pid}: would drop every test of the problem")
        drop[pid] = tuple(tests)
    drop_symbols = {}
    for pid, symbols in _table(table.get("drop_symbols", {}), f"{where}.drop_symbols").items():
        if pid not in points:
            raise SpecError(f"{where}.drop_symbols: '{pid}' is not one of this offering's problems")
        bad = [s for s in symbols if s not in known[pid].swap.symbols] if isinstance(symbols, list) else symbols
        if bad:
            raise SpecError(f"{where}.drop_symbols.{pid}: not [swap] symbols of the problem: {bad!r}")
        drop_symbols[pid] = tuple(symbols)
    markers = {str(k): str(v) for k, v in _table(table.get("markers", {}), f"{where}.markers").items()}
    stray = set(markers) - set(points)
    if stray:
        raise SpecError(f"{where}.markers: not problems of this offering: {', '.join(sorted(stray))}")
    return Offering(oid, str(table.get("title", oid)), points, str(table.get("starter", "")), drop, drop_symbols,
                    markers, every=table.get("problems") == EVERY_PROBLEM)


def load_offerings(path: Optional[Path] = None) -> Tuple[str, Dict[str, Offering]]:
    """(default id, {id: Offering}) from `problems/offerings.toml`; errors name the file and key."""
    path = path or paths.PROBLEMS / "offerings.toml"
    try:
        raw = toml.loads(path.read_text(encoding="utf-8"))
    except (OSError, toml.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: {exc}") from exc
    extra = set(raw) - {"default", "offerings", "visibility"}  # [visibility]: graders.spec.course_visibility
    if extra:
        raise SpecError(f"{path}: unknown key(s) {', '.join(sorted(extra))}")
    known = {s.id: s for s in load_problems(path.parent)}
    offerings = {
        oid: _parse_offering(oid, table, f"{path} [offerings.{oid}]", known)
        for oid, table in _table(raw.get("offerings"), f"{path} [offerings]").items()
    }
    default = str(raw.get("default", ""))
    if default not in offerings:
        raise SpecError(f"{path}: default offering '{default}' is not defined (offerings: {', '.join(offerings)})")
    return default, offerings


#: environment variable naming the offering when no option does (set by the Gradescope scripts)
OFFERING_ENV = "AUTOGRADE_OFFERING"


def get_offering(offering_id: Optional[str] = None) -> Offering:
    """The offering `offering_id` (None: $AUTOGRADE_OFFERING, else the file's default)."""
    default, offerings = load_offerings()
    oid = offering_id or os.environ.get(OFFERING_ENV) or default
    if oid not in offerings:
        raise SpecError(f"unknown offering '{oid}' (offerings: {', '.join(offerings)})")
    return offerings[oid]


def grading_offering(problem_id: str) -> Optional[str]:
    """The default offering if it grades `problem_id`, else the first offering (in file order) that does;
    None when no offering grades it."""
    default, offerings = load_offerings()
    return next((oid for oid in [default, *offerings] if problem_id in offerings[oid].points), None)


def scaled(spec: ProblemSpec, total: float, drop: Sequence[str] = (), drop_symbols: Sequence[str] = ()) -> ProblemSpec:
    """`spec` without the tests in `drop` nor the swap symbols in `drop_symbols`, its test points
    scaled so that they sum to `total`."""
    tests = [t for t in spec.tests if t.id not in set(drop)]
    natural = sum(t.points for t in tests)
    factor = total / natural
    swap = dataclasses.replace(spec.swap, symbols=tuple(s for s in spec.swap.symbols if s not in set(drop_symbols)))
    return dataclasses.replace(
        spec, swap=swap, tests=tuple(dataclasses.replace(t, points=t.points * factor) for t in tests)
    )


def offering_problems(offering: Optional[Offering] = None, only: Optional[List[str]] = None) -> List[ProblemSpec]:
    """The problems `offering` grades (optionally only `only`), with the offering's points."""
    offering = offering or get_offering()
    if only:
        outside = [p for p in only if p not in offering.points]
        if outside:
            raise SpecError(
                f"problem(s) {', '.join(outside)} not graded in offering '{offering.id}' "
                f"(its problems: {', '.join(offering.points)}; another offering: --offering)"
            )
    wanted = [p for p in offering.points if not only or p in only]
    specs = {s.id: s for s in load_problems(only=wanted)}
    return [
        scaled(specs[p], offering.points[p], offering.drop.get(p, ()), offering.drop_symbols.get(p, ()))
        for p in wanted
    ]
