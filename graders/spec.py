"""Problem specifications: one `problems/<id>/problem.toml` per problem.

A problem is added by adding a folder; nothing in the grader names problems.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import paths


class SpecError(ValueError):
    """A problem.toml is malformed (the message names the file and the key)."""


@dataclass(frozen=True)
class SwapSpec:
    """Which student code a problem grades."""

    #: path of the student file, relative to the submission root (e.g. ``minitorch/autodiff.py``)
    file: str
    #: the reference module that file corresponds to (e.g. ``minitorch.autodiff``)
    module: str
    #: dotted names taken from the student's module (``backpropagate``, ``Neg.forward``); a symbol may
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


@dataclass(frozen=True)
class Limits:
    """Resource limits of the problem's sandboxed child."""

    wall_seconds: float = 60.0
    cpu_seconds: int = 120
    memory_mib: int = 1024
    probe_seconds: float = 20.0


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


def _require(table: dict, key: str, where: str) -> object:
    if key not in table:
        raise SpecError(f"{where}: missing key '{key}'")
    return table[key]


def load_problem(folder: Path) -> ProblemSpec:
    """Parse `folder/problem.toml` into a ProblemSpec (clear errors naming the file)."""
    path = folder / "problem.toml"
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: {exc}") from exc
    where = str(path)
    swap_raw = _require(raw, "swap", where)
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
        known = {"id", "name", "probe", "kind", "points", "judge"}
        tests.append(
            TestSpec(
                id=tid,
                name=str(t.get("name", tid)),
                probe=str(t.get("probe", tid)),
                kind=str(_require(t, "kind", w)),
                points=float(_require(t, "points", w)),
                judge=str(t.get("judge", "allclose")),
                options={k: v for k, v in t.items() if k not in known},
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
    specs = [load_problem(d) for d in sorted(root.iterdir()) if (d / "problem.toml").is_file()]
    if only:
        unknown = set(only) - {s.id for s in specs}
        if unknown:
            raise SpecError(f"unknown problem id(s): {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s.id in only]
    return sorted(specs, key=lambda s: (s.order, s.id))
