"""Judge stage (trusted parent): compare a child's plain data with the reference run's.

Student values are converted to float64 arrays before any comparison, so
nothing a submission defines (an `__eq__`, a `__float__`) is ever called here.
A judge is `fn(student, reference, options) -> Verdict`; problems may add their
own in `problems/<id>/judges.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from .probe import ProbeOutcome


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
            return float(v)
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, dict) and set(v) == {"__float__"}:
            return float(str(v["__float__"]))
        raise NotNumeric(f"not a number: {describe_value(v)}")

    try:
        arr = np.array(clean(value), dtype=np.float64)
    except ValueError as exc:
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
        return f"{where}: entry {i} is {got.ravel()[i]}, expected {want.ravel()[i]}"
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
    problem = compare_values(student.value, reference.value, float(options.get("rtol", 1e-9)), float(options.get("atol", 1e-12)))
    if problem is None:
        return Verdict(1.0, "matches the reference")
    return Verdict(0.0, problem)


def _outcome_error_rules(outcome: ProbeOutcome) -> Optional[str]:
    if outcome.status == "error" and outcome.error_type == "RecursionError":
        return "recursion-limit"
    return None


def judge_outcome(fn: Judge, student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any], display_path: str) -> Verdict:
    """Apply `fn`, failing a probe that raised (with its message) unless the judge handles errors."""
    if not student.ok and not getattr(fn, "handles_errors", False):
        return Verdict(0.0, student.describe(display_path), misconception=_outcome_error_rules(student))
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


def same_outcome(fn: Judge, candidate: ProbeOutcome, mutant: ProbeOutcome, options: Dict[str, Any]) -> bool:
    """Does `candidate` reproduce `mutant`'s output (used to name a misconception)?

    Both raised the same exception type, or both returned the same data (what the
    judge looks at: its `view`, if it declares one), errors compared by type.
    """
    if not mutant.ok or not candidate.ok:
        return (
            candidate.status == mutant.status == "error"
            and candidate.error_type == mutant.error_type
            and candidate.error_type not in ("NotImplementedError",)
        )
    view = getattr(fn, "view", lambda value: value)
    try:
        mine, theirs = _errors_by_type(view(candidate.value)), _errors_by_type(view(mutant.value))
    except (AttributeError, KeyError, TypeError, IndexError):
        return False
    rtol, atol = float(options.get("rtol", 1e-9)), float(options.get("atol", 1e-12))
    return compare_values(mine, theirs, rtol, atol) is None


# ------------------------------------------------------------ structural judges


def check_reverse_topological(order: Sequence[int], edges: Sequence[Sequence[int]], constants: Sequence[int], output: int) -> Optional[str]:
    """None if `order` lists every non-constant node reachable from `output` once, each before its inputs."""
    constants = set(constants)
    reachable, stack = set(), [output]
    while stack:
        v = stack.pop()
        if v in reachable or v in constants:
            continue
        reachable.add(v)
        stack.extend(edges[v])
    if any(not isinstance(v, int) or v < 0 for v in order):
        return "the order contains objects that are not nodes of the graph"
    seen = set()
    for v in order:
        if v in seen:
            return f"node #{v} appears more than once"
        seen.add(v)
    if seen & constants:
        return "constants are in the order (they need no derivative: skip them)"
    if seen != reachable:
        missing = len(reachable - seen)
        return f"{missing} non-constant node(s) reachable from the output are missing from the order"
    if order and order[0] != output:
        return "the output variable must come first"
    position = {v: i for i, v in enumerate(order)}
    for v in order:
        for p in edges[v]:
            if p in position and position[p] < position[v]:
                return (
                    f"node #{p} comes before node #{v}, which uses it: a node must come before all "
                    "its parents so its adjoint is complete when it is processed"
                )
    return None


@judge("topological_order")
def topological_order(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Any valid reverse topological order passes (the property, not one order)."""
    want = reference.value if isinstance(reference.value, list) else [reference.value]
    got = student.value if isinstance(student.value, list) else [student.value]
    if len(got) != len(want):
        return Verdict(0.0, "wrong number of graphs in the result")
    for i, (g, w) in enumerate(zip(got, want)):
        order = g.get("order") if isinstance(g, dict) else None
        if not isinstance(order, list):
            return Verdict(0.0, f"graph {i}: topological_sort did not return a sequence of variables")
        problem = check_reverse_topological(order, w["edges"], w["constants"], w["output"])
        if problem:
            return Verdict(0.0, f"graph {i}: {problem}", misconception="not-topological" if "comes before" in problem else None)
    return Verdict(1.0, "a valid reverse topological order on every graph")


def _work(row: Dict[str, Any]) -> int:
    return int(row.get("chain_rule", 0)) + int(row.get("parents", 0))


def superlinear(rows: List[Dict[str, Any]]) -> bool:
    """Work growing clearly faster than the node count between the last two measured sizes."""
    done = [r for r in rows if isinstance(r, dict) and r.get("nodes")]
    if len(done) < 2:
        return bool(done and done[-1].get("exceeded"))
    a, b = done[-2], done[-1]
    return b.get("exceeded") or _work(b) / max(_work(a), 1) > 1.5 * (b["nodes"] / a["nodes"])


@judge("linear_work")
def linear_work(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Work (chain_rule + parents uses) must grow linearly with nodes, within a factor of the reference."""
    rows, ref_rows = student.value, reference.value
    factor = float(options.get("factor", 6.0))
    figure = {"kind": "work", "student": rows, "reference": ref_rows}
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        return Verdict(0.0, "no measurements", figure=figure)
    for row, ref in zip(rows, ref_rows):
        work, ref_work = _work(row), _work(ref)
        if row.get("exceeded") or work > factor * ref_work + 10:
            grows = superlinear(rows[: rows.index(row) + 1])
            what = "more than " if row.get("exceeded") else ""
            message = (
                f"{what}{work} uses of chain_rule/parents on a {ref['layers']}-layer diamond chain of "
                f"{ref['nodes']} nodes (the reference needs {ref_work})"
            )
            message += (
                ": the work grows with the number of paths, which doubles with every layer"
                if grows else ": each node should be visited a constant number of times"
            )
            return Verdict(0.0, message, misconception="path-recursion" if grows else None, figure=figure)
    if len(rows) < len(ref_rows):
        return Verdict(0.0, "the measurement stopped early", figure=figure)
    problem = compare_values([r.get("derivative") for r in rows], [r.get("derivative") for r in ref_rows], 1e-9, 1e-12)
    if problem:
        return Verdict(0.0, f"wrong derivatives on the diamond chains: {problem}", figure=figure)
    return Verdict(1.0, "work grows linearly with the number of nodes", figure=figure)


def parent_timed(rows: List[Dict[str, Any]], marks: Optional[Dict[str, float]]) -> List[Dict[str, Any]]:
    """The rows with `seconds` = the best run's CPU time, as the kernel reported it to the parent.

    The child marks the start and end of each run; at each mark the parent reads the child's
    CPU clock from /proc. Rows missing a mark (or with any forged mark) come back without seconds.
    """
    timed = []
    for row in rows:
        row = {k: v for k, v in row.items() if k != "seconds"}
        tag, runs = row.get("tag"), row.get("runs") if isinstance(row.get("runs"), list) else []
        spans = []
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


@judge("time_ratio")
def time_ratio(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Doubling the largest graph must not much more than double the time.

    Timed in CPU time that the parent reads from the kernel (/proc/<pid>/schedstat) at
    marks the child sends before and after each run (it waits for each to be read): code
    in the child cannot fake it, and waiting for a busy CPU does not count. Robust: best of 3 runs per size (up to 16000 nodes, where a quadratic term
    dominates), and the largest pair measured twice; load can only slow a run down,
    so the smaller of the two ratios is kept. Linear work gives ≈ 2, quadratic ≈ 4;
    the bound (`max_ratio`, 3.0) sits between.
    """
    value = student.value if isinstance(student.value, dict) else {}
    rows, again = value.get("rows"), value.get("again")
    bound = float(options.get("max_ratio", 3.0))
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows) or not isinstance(again, list) \
            or not all(isinstance(r, dict) for r in again):
        return Verdict(0.0, "malformed timing data")
    rows, again = parent_timed(rows, student.marks), parent_timed(again, student.marks)
    ref = reference.value
    figure = {"kind": "time", "student": rows, "reference": parent_timed(ref["rows"], reference.marks)}
    if rows and rows[-1].get("exceeded"):
        return Verdict(
            0.0,
            f"more than {rows[-1].get('budget')} uses of chain_rule/parents on a graph of {rows[-1].get('nodes')} "
            "nodes: the work grows with the number of paths",
            misconception="path-recursion",
            figure=figure,
        )
    if student.marks is None or not all(isinstance(r.get("seconds"), float) for r in rows + again):
        return Verdict(0.0, "the timing marks are missing or were sent twice (nothing else may send them)", figure=figure)
    ratios = [b["seconds"] / max(a["seconds"], 1e-9) for a, b in zip(rows, rows[1:])]
    if len(rows) < len(ref["rows"]) or len(again) < len(ref["again"]):
        text = ", ".join(f"{r:.2f}" for r in ratios) or "none"
        grows = bool(ratios) and ratios[-1] > bound
        return Verdict(
            0.0,
            f"the timing stopped early: {rows[-1]['nodes']} nodes took {rows[-1]['seconds']:.1f} s (the reference "
            f"needs well under 0.1 s); time ratios when the graph doubles: {text}",
            misconception="quadratic-traversal" if grows else None,
            figure=figure,
        )
    confirm = again[1]["seconds"] / max(again[0]["seconds"], 1e-9)
    text = ", ".join(f"{r:.2f}" for r in ratios) + f" (largest pair again: {confirm:.2f})"
    if min(ratios[-1], confirm) <= bound:
        return Verdict(1.0, f"time ratios when the graph doubles: {text}; linear ≈ 2", figure=figure)
    return Verdict(
        0.0,
        f"time ratios when the graph doubles: {text}; linear work gives ≈ 2, quadratic ≈ 4. "
        "Look for a membership test on a list (`x in some_list`), list.index/insert(0, ...) "
        "or repeated scans inside the loop",
        misconception="quadratic-traversal",
        figure=figure,
    )


@judge("deep_chain", handles_errors=True)
def deep_chain(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """The chain's derivative, at the default recursion limit."""
    if not student.ok:
        rule = _outcome_error_rules(student)
        if rule == "recursion-limit" or "recursion" in student.error_message.lower():
            return Verdict(
                0.0,
                f"{student.describe(options.get('display_path', ''))}: a recursive traversal dies on deep graphs",
                misconception="recursion-limit",
            )
        return Verdict(0.0, student.describe(options.get("display_path", "")))
    if isinstance(student.value, dict) and student.value.get("recursion_limit_raised") is True:
        return Verdict(
            0.0,
            "sys.setrecursionlimit was raised to get through the deep chain: the traversal is still recursive; "
            "use an explicit stack instead",
            misconception="recursion-limit",
        )
    return allclose(student, reference, options)


@judge("constants_skipped")
def constants_skipped(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Constants must not be visited: no parents/chain_rule/accumulate_derivative on them."""
    value = student.value if isinstance(student.value, dict) else {}
    touched = value.get("touched_constants")
    if touched:
        return Verdict(
            0.0,
            f"{', '.join(map(str, touched))} was used on a constant ({value.get('error')})",
            misconception="constant-not-skipped",
        )
    problem = compare_values(value.get("leaves"), reference.value["leaves"], 1e-9, 1e-12, "leaf derivatives")
    if problem:
        return Verdict(0.0, problem)
    return Verdict(1.0, "constants skipped, leaf derivatives right")


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


@judge("fan_out")
def fan_out(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """x used by several users: its adjoint is the sum of their contributions (2 + 3 = 5, 2 + 3 + 5 = 10)."""
    got = student.value if isinstance(student.value, list) else []
    want = reference.value
    problem = compare_values([g.get("dx") if isinstance(g, dict) else g for g in got], [w["dx"] for w in want], 1e-12, 1e-12, "dx")
    if problem is None:
        return Verdict(1.0, "adjoints summed over every user")
    for g, w in zip(got, want):
        order = g.get("order") if isinstance(g, dict) else None
        if isinstance(order, list) and check_reverse_topological(order, w["edges"], w["constants"], w["output"]):
            return Verdict(0.0, f"{problem}: topological_sort's order is not a reverse topological order, so "
                                "x was processed before all its users had contributed", misconception="not-topological")
    singles = [{2.0, 3.0}, {2.0, 3.0, 5.0}]
    dx = [g.get("dx") if isinstance(g, dict) else None for g in got]
    if len(dx) == 2 and all(isinstance(v, float) and v in s for v, s in zip(dx, singles)):
        return Verdict(
            0.0,
            f"x is used by several nodes: dx = {dx}, expected {[w['dx'] for w in want]} (the sum of every "
            "user's contribution); only one user's contribution was kept",
            misconception="no-fanout-accumulation",
        )
    return Verdict(0.0, problem)


@judge("seed_scaled")
def seed_scaled(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """backpropagate(variable, deriv) with deriv != 1: every derivative is scaled by deriv."""
    problem = compare_values(student.value, reference.value, 1e-9, 1e-12)
    if problem is None:
        return Verdict(1.0, "every derivative scaled by deriv")
    seed = float(options.get("seed", 2.5))
    try:
        unscaled = compare_values(student.value, (to_array(reference.value) / seed).tolist(), 1e-9, 1e-12) is None
    except NotNumeric:
        unscaled = False
    if unscaled:
        return Verdict(0.0, f"{problem}: the derivatives are those of deriv = 1; start reverse mode from deriv = {seed:g}",
                       misconception="seed-derivative-ignored")
    return Verdict(0.0, problem)
