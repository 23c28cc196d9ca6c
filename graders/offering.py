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

from . import paths
from .schema import EVERY_PROBLEM, Issue, described, offerings_issues
from .spec import ProblemSpec, SpecError, load_problems, read_toml


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


def reference_issues(raw: dict, known: Dict[str, ProblemSpec]) -> List[Issue]:
    """What a parsed offerings.toml (of the right schema, graders.schema) says of problems that they contradict:
    unknown problems, test ids and swap symbols, dropping every test, markers of problems not graded, an undefined
    default."""
    found: List[Issue] = []
    for oid, table in raw["offerings"].items():
        at = ("offerings", oid)
        points = _points(table, known)
        for pid in points:
            if pid not in known:
                found.append(Issue(at, ("problems", pid), f"no such problem (problems: {', '.join(sorted(known))})"))
        if not points:
            found.append(Issue(at, ("problems",), "grades no problem"))
        for pid, tests in table.get("drop", {}).items():
            if pid not in points:
                found.append(Issue(at, ("drop", pid), "not one of this offering's problems"))
            if pid not in points or pid not in known:
                continue
            test_ids = {t.id for t in known[pid].tests}
            bad = [t for t in tests if t not in test_ids]
            if bad:
                found.append(Issue(at, ("drop", pid), f"unknown test id(s) {', '.join(bad)} (its tests: "
                                                      f"{', '.join(t.id for t in known[pid].tests)})"))
            elif set(tests) >= test_ids:
                found.append(Issue(at, ("drop", pid), "would drop every test of the problem"))
        for pid, symbols in table.get("drop_symbols", {}).items():
            if pid not in points:
                found.append(Issue(at, ("drop_symbols", pid), "not one of this offering's problems"))
            if pid not in points or pid not in known:
                continue
            bad = [s for s in symbols if s not in known[pid].swap.symbols]
            if bad:
                found.append(Issue(at, ("drop_symbols", pid), f"not [swap] symbols of the problem: {', '.join(bad)} "
                                                              f"(its symbols: {', '.join(known[pid].swap.symbols)})"))
        found += [Issue(at, ("markers", pid), "not one of this offering's problems")
                  for pid in table.get("markers", {}) if pid not in points]
    if raw["default"] not in raw["offerings"]:
        found.append(Issue((), ("default",), f"offering \"{raw['default']}\" is not defined "
                                             f"(offerings: {', '.join(raw['offerings'])})"))
    return found


def _points(table: dict, known: Dict[str, ProblemSpec]) -> Dict[str, float]:
    """problem id -> points of one offering's `problems` (`"*"`: every problem folder at its own points, in
    problem order)."""
    if table["problems"] == EVERY_PROBLEM:
        return {spec.id: spec.max_score for spec in sorted(known.values(), key=lambda s: (s.order, s.id))}
    return {pid: float(value) for pid, value in table["problems"].items()}


def load_offerings(path: Optional[Path] = None) -> Tuple[str, Dict[str, Offering]]:
    """(default id, {id: Offering}) from `problems/offerings.toml`; a file that breaks its schema
    (graders.schema) or names what the problems do not have is a SpecError naming the file and each key."""
    path = path or paths.PROBLEMS / "offerings.toml"
    raw = read_toml(path)
    issues = offerings_issues(raw)
    if issues:
        raise SpecError(described(path, issues))
    known = {s.id: s for s in load_problems(path.parent)}
    issues = reference_issues(raw, known)
    if issues:
        raise SpecError(described(path, issues))
    offerings = {
        oid: Offering(oid, table.get("title", oid), _points(table, known), table.get("starter", ""),
                      {pid: tuple(tests) for pid, tests in table.get("drop", {}).items()},
                      {pid: tuple(symbols) for pid, symbols in table.get("drop_symbols", {}).items()},
                      dict(table.get("markers", {})), every=table["problems"] == EVERY_PROBLEM)
        for oid, table in raw["offerings"].items()
    }
    return raw["default"], offerings


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
