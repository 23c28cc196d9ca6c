"""Judge stage (trusted parent): compare a child's plain data with the reference run's.

Student values are converted to float64 arrays before any comparison, so
nothing a submission defines (an `__eq__`, a `__float__`) is ever called here.
A judge is `fn(student, reference, options) -> Verdict`; problems may add their
own in `problems/<id>/judges.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .results import ProbeOutcome


@dataclass
class Verdict:
    """The judgement of one test."""

    #: fraction of the test's points earned, in [0, 1]
    fraction: float
    #: what the student sees: what was checked, what was found
    message: str
    #: a misconception id found by a rule (not by mutant matching), or None
    misconception: Optional[str] = None
    #: data for figures (e.g. work per graph size)
    figure: Optional[Dict[str, Any]] = None
    #: further misconceptions the same data shows (all of them are named; `misconception` tags the test)
    also: Tuple[str, ...] = ()
    #: what a TA should look at by hand before trusting this verdict (the data cannot tell two readings apart);
    #: gathered into the grading's review list, never a change of score
    review: Optional[str] = None

    @property
    def passed(self) -> bool:
        return self.fraction >= 1.0


Judge = Callable[[ProbeOutcome, ProbeOutcome, Dict[str, Any]], Verdict]
BUILTIN: Dict[str, Judge] = {}


def judge(name: str, handles_errors: bool = False) -> Callable[[Judge], Judge]:
    """Register a builtin judge. Unless `handles_errors`, a probe that raised fails outright."""

    def register(fn: Judge) -> Judge:
        fn.handles_errors = handles_errors  # type: ignore[attr-defined]
        BUILTIN[name] = fn
        return fn

    return register


class NotNumeric(ValueError):
    """A student value could not be read as numbers."""


def to_array(value: Any) -> np.ndarray:
    """Plain data (nested lists of numbers, NaN/inf markers) as a float64 array."""

    def clean(v: Any) -> Any:
        if isinstance(v, bool) or v is None:
            return float("nan") if v is None else float(v)
        if isinstance(v, (int, float)):
            try:
                return float(v)
            except OverflowError:  # an int beyond float range (10**400) is a number too big to compare
                return float("inf") if v > 0 else float("-inf")
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, dict) and set(v) == {"__float__"}:
            return float(str(v["__float__"]))
        raise NotNumeric(f"not a number: {describe_value(v)}")

    try:
        arr = np.array(clean(value), dtype=np.float64)
    except (ValueError, TypeError, OverflowError) as exc:
        raise NotNumeric(f"ragged or non-numeric data ({exc})") from None
    return arr


def describe_value(v: Any, limit: int = 120) -> str:
    if isinstance(v, dict) and "__unserializable__" in v:
        return f"an object of type {v['__unserializable__']}"
    text = repr(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short(arr: np.ndarray, limit: int = 6) -> str:
    flat = arr.ravel()
    body = ", ".join(f"{x:.6g}" for x in flat[:limit])
    more = ", ..." if flat.size > limit else ""
    return f"[{body}{more}]" if arr.ndim else f"{float(arr):.10g}"


def compare_values(student: Any, reference: Any, rtol: float, atol: float, path: str = "") -> Optional[str]:
    """None if `student` matches `reference` structurally and numerically, else why not."""
    where = path or "value"
    if isinstance(reference, dict) and not set(reference) <= {"__float__"}:
        if not isinstance(student, dict):
            return f"{where}: expected a mapping, got {describe_value(student)}"
        for key in reference:
            if key not in student:
                return f"{where}: missing '{key}'"
            problem = compare_values(student[key], reference[key], rtol, atol, f"{path}.{key}" if path else key)
            if problem:
                return problem
        return None
    if isinstance(reference, list) and _structured(reference):
        return _compare_items(student, reference, rtol, atol, path)
    if isinstance(reference, str):
        return None if student == reference else f"{where}: got {describe_value(student)}, expected {reference!r}"
    if reference is None:
        return None if student is None else f"{where}: got {describe_value(student)}, expected nothing (None)"
    try:
        want = to_array(reference)
    except NotNumeric:
        if not isinstance(reference, list):
            raise
        return _compare_items(student, reference, rtol, atol, path)  # ragged: e.g. gradients of several shapes
    try:
        got = to_array(student)
    except NotNumeric as exc:
        return f"{where}: {exc}"
    if got.shape != want.shape:
        return f"{where}: shape {got.shape}, expected {want.shape}"
    none_mismatch = np.isnan(got) != np.isnan(want)
    if none_mismatch.any():
        i = int(np.argmax(none_mismatch.ravel()))

        def shown(x: float) -> str:
            return "no value (None or NaN)" if np.isnan(x) else f"{x:.10g}"

        return f"{where}: entry {i} is {shown(got.ravel()[i])}, expected {shown(want.ravel()[i])}"
    both = ~np.isnan(want)
    close = np.isclose(got[both], want[both], rtol=rtol, atol=atol)
    if not close.all():
        i = int(np.argmax(~close))
        return (
            f"{where}: got {short(got)}, expected {short(want)} "
            f"(entry {i}: {got[both][i]:.10g} vs {want[both][i]:.10g}; rtol={rtol:g}, atol={atol:g})"
        )
    return None


def _compare_items(student: Any, reference: List[Any], rtol: float, atol: float, path: str) -> Optional[str]:
    """Compare two lists entry by entry (for lists of mappings or of arrays of different shapes)."""
    where = path or "value"
    if not isinstance(student, list) or len(student) != len(reference):
        return f"{where}: expected {len(reference)} entries, got {describe_value(student)}"
    for i, (s_item, r_item) in enumerate(zip(student, reference)):
        problem = compare_values(s_item, r_item, rtol, atol, f"{path}[{i}]")
        if problem:
            return problem
    return None


def _structured(items: List[Any]) -> bool:
    """True when a list holds mappings or strings somewhere (compare item by item, not as an array)."""
    return any(isinstance(r, (dict, str)) or (isinstance(r, list) and _structured(r)) for r in items)


@judge("allclose")
def allclose(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Numerically equal to the reference within `rtol`/`atol` (default 1e-9 / 1e-12)."""
    problem = compare_values(student.value, reference.value, float(options.get("rtol", 1e-9)),
                             float(options.get("atol", 1e-12)))
    if problem is None:
        return Verdict(1.0, "matches the reference")
    return Verdict(0.0, problem)


def judge_outcome(fn: Judge, student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any],
                  display_path: str) -> Verdict:
    """Apply `fn`, failing a probe that raised (with its message) unless the judge handles errors.

    An exception alone names no misconception: a judge that handles errors may name
    one from what the probe was measuring (e.g. a RecursionError on a deep chain).
    """
    if not student.ok and not getattr(fn, "handles_errors", False):
        return Verdict(0.0, student.describe(display_path))
    return fn(student, reference, {**options, "display_path": display_path})


def _errors_by_type(value: Any) -> Any:
    """Error records reduced to their exception type (messages and line numbers differ between files)."""
    if isinstance(value, dict):
        if isinstance(value.get("__error__"), dict):
            return {"__error__": str(value["__error__"].get("type"))}
        return {k: _errors_by_type(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_errors_by_type(v) for v in value]
    return value


def _number(v: Any) -> Optional[float]:
    """A finite non-zero plain number as a float, else None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if v != 0 and np.isfinite(v) else None


def telling_numbers(mutant: Any, reference: Any, rtol: float, atol: float) -> bool:
    """True when `mutant` holds a finite non-zero number that the reference does not have at that place.

    Only such numbers single a mistake out: the graph structure a probe reports is the
    same for everyone, and exception types, missing (None) and zero derivatives are
    what many unrelated bugs produce.
    """
    if isinstance(mutant, dict):
        if "__error__" in mutant or "__unserializable__" in mutant or set(mutant) == {"__float__"}:
            return False
        ref = reference if isinstance(reference, dict) else {}
        return any(telling_numbers(v, ref.get(k), rtol, atol) for k, v in mutant.items())
    if isinstance(mutant, list):
        same_shape = isinstance(reference, list) and len(reference) == len(mutant)
        refs = reference if same_shape else [None] * len(mutant)
        return any(telling_numbers(v, r, rtol, atol) for v, r in zip(mutant, refs))
    value = _number(mutant)
    if value is None:
        return False
    number = reference if isinstance(reference, (int, float)) and not isinstance(reference, bool) else None
    return number is None or not np.isclose(value, float(number), rtol=rtol, atol=atol)


def _viewed(fn: Judge, outcome: Optional[ProbeOutcome]) -> Any:
    """What `fn` looks at in an outcome's data (its `view`, if it declares one), errors reduced to types."""
    if outcome is None or not outcome.ok:
        return None
    return _errors_by_type(getattr(fn, "view", lambda value: value)(outcome.value))


def telling_outcome(fn: Judge, mutant: ProbeOutcome, reference: Optional[ProbeOutcome],
                    options: Dict[str, Any]) -> bool:
    """Can a submission reproduce this mutant outcome as evidence? Only returned data that differs
    from the reference's in finite non-zero numbers (`telling_numbers`) can; an exception cannot."""
    if not mutant.ok:
        return False
    try:
        theirs, ref = _viewed(fn, mutant), _viewed(fn, reference)
    except (AttributeError, KeyError, TypeError, IndexError):
        return False
    rtol, atol = float(options.get("rtol", 1e-9)), float(options.get("atol", 1e-12))
    return telling_numbers(theirs, ref, rtol, atol)


def same_outcome(fn: Judge, candidate: ProbeOutcome, mutant: ProbeOutcome, options: Dict[str, Any],
                 reference: Optional[ProbeOutcome] = None) -> bool:
    """Does `candidate` reproduce `mutant`'s output (used to name a misconception)?

    Only returned data can: the mutant's outcome must be telling (`telling_outcome`), and
    the candidate must have produced the same data (what the judge looks at; error records
    inside it compared by type). Two probes that raised the same exception type, or that
    both left every derivative at zero or None, are no evidence of the same mistake.
    """
    if not candidate.ok or not telling_outcome(fn, mutant, reference, options):
        return False
    try:
        mine, theirs = _viewed(fn, candidate), _viewed(fn, mutant)
    except (AttributeError, KeyError, TypeError, IndexError):
        return False
    rtol, atol = float(options.get("rtol", 1e-9)), float(options.get("atol", 1e-12))
    return compare_values(mine, theirs, rtol, atol) is None


# ------------------------------------------------------------ timing evidence (any problem that times code)


def parent_timed(rows: List[Dict[str, Any]], marks: Optional[Dict[str, float]]) -> List[Dict[str, Any]]:
    """The rows with `seconds` = the best run's CPU time, as the kernel reported it to the parent.

    The child marks the start and end of each run; at each mark the parent reads the child's
    CPU clock from /proc. Rows missing a mark (or with any forged mark) come back without seconds.
    The runs' derivatives are left out (they are judged apart, and the rows go into figures).
    """
    timed = []
    for row in rows:
        row = {k: v for k, v in row.items() if k not in ("seconds", "derivatives")}
        tag, runs = row.get("tag"), row.get("runs")
        runs = runs if isinstance(runs, list) else []
        spans: List[float] = []
        for i in range(len(runs) if not row.get("exceeded") else 0):
            start, end = (marks or {}).get(f"{tag}:{i}:start"), (marks or {}).get(f"{tag}:{i}:end")
            if not (isinstance(start, float) and isinstance(end, float) and end >= start):
                spans = []
                break
            spans.append(end - start)
        if spans:
            row["seconds"] = min(spans)
        timed.append(row)
    return timed


def get_judge(name: str, local: Dict[str, Judge]) -> Judge:
    if name in local:
        return local[name]
    if name in BUILTIN:
        return BUILTIN[name]
    raise KeyError(f"unknown judge '{name}'")


def error_text(value: Any, display_path: str) -> Optional[str]:
    """'Type: message (file:line)' for a probe-side error record, else None."""
    if not (isinstance(value, dict) and isinstance(value.get("__error__"), dict)):
        return None
    err = value["__error__"]
    where = f" ({display_path}:{err['line']})" if isinstance(err.get("line"), int) else ""
    return f"{err.get('type', 'Error')}: {err.get('message', '')}{where}"
