"""Parent-side judges for `autodiff`: orders, fan-out, the seed and constants, judged as properties.

Every misconception named here rests on evidence about this submission's own
data (the order its `topological_sort` returned, the sequence of `chain_rule`
calls its `backpropagate` made, the values it computed), never on a resemblance
alone (an exception type shared with some mutant, all-zero derivatives).
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from graders.api import NotNumeric, ProbeOutcome, Verdict, allclose, compare_values, parent_timed, to_array

#: relative and absolute tolerance for adjoints that are sums of a few exact products
ADJOINT_TOL = 1e-9


# ------------------------------------------------------------------ orders


@dataclass
class OrderFinding:
    """What is wrong with an order (None: a valid reverse topological order) and the misconception it shows."""

    problem: Optional[str] = None
    misconception: Optional[str] = None


def _reachable(edges: Sequence[Sequence[int]], constants: Set[int], output: int) -> Set[int]:
    """The non-constant nodes reachable from `output` through the inputs (`edges[v]` are v's inputs)."""
    found, stack = set(), [output]
    while stack:
        v = stack.pop()
        if v in found or v in constants:
            continue
        found.add(v)
        stack.extend(edges[v])
    return found


def _first_violation(order: Sequence[int], edges: Sequence[Sequence[int]],
                     inputs_first: bool) -> Optional[Tuple[int, int]]:
    """(input, user) of the first edge whose endpoints are in the wrong relative order, or None.

    `inputs_first=False` asks for a reverse topological order (each node before its
    inputs); `True` for a topological order (each input before its users).
    """
    position = {v: i for i, v in enumerate(order)}
    for v in order:
        for p in edges[v]:
            if p in position and (position[p] < position[v]) != inputs_first and p != v:
                return p, v
    return None


def judge_order(order: Sequence[Any], edges: Sequence[Sequence[int]], constants: Sequence[int],
                output: int) -> OrderFinding:
    """Is `order` every non-constant node reachable from `output` once, each before its inputs?

    Misconceptions, each on this order alone: constants listed (but otherwise a valid
    order) is `constant-not-skipped`; the exact opposite direction (a topological order
    with the output last) is `order-not-reversed`; a node listed before one of its users
    otherwise is `not-topological`. Missing or repeated nodes name nothing.
    """
    if any(not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < len(edges) for v in order):
        return OrderFinding("the order contains objects that are not nodes of the graph")
    seen: Set[int] = set()
    for v in order:
        if v in seen:
            return OrderFinding(f"node #{v} appears more than once")
        seen.add(v)
    constant_set = set(constants)
    listed_constants = [v for v in order if v in constant_set]
    order = [v for v in order if v not in constant_set]
    reachable = _reachable(edges, constant_set, output)
    if set(order) != reachable:
        missing = len(reachable - set(order))
        extra = len(set(order) - reachable)
        what = f"{missing} non-constant node(s) reachable from the output are missing from the order" if missing else \
            f"{extra} node(s) that the output does not depend on are in the order"
        return OrderFinding(what)
    constants_note = " (constants are in it too: skip them)" if listed_constants else ""
    wrong = _first_violation(order, edges, inputs_first=False)
    if wrong is None:
        if listed_constants:
            return OrderFinding(
                f"constant node(s) {listed_constants[:5]} are in the order: constants need no derivative, so "
                "topological_sort must skip them (check is_constant())",
                "constant-not-skipped",
            )
        return OrderFinding()
    if _first_violation(order, edges, inputs_first=True) is None and len(order) > 1:
        p, v = wrong
        return OrderFinding(
            f"the output comes last: node #{p} is listed before node #{v}, which uses it. This is a topological "
            "order (inputs first); backpropagation needs the reverse topological order, the output first and "
            f"every node before its parents: reverse the depth-first post-order{constants_note}",
            "order-not-reversed",
        )
    p, v = wrong
    return OrderFinding(
        f"node #{p} comes before node #{v}, which uses it: a node must come before all its parents so its "
        f"adjoint is complete when it is processed{constants_note}",
        "not-topological",
    )


def crash_text(value: Any, display_path: str) -> Optional[str]:
    """How a part of a probe's data that raised reads ('RecursionError: ... (file:line)', worded as a probe that
    raised), or None when `value` is no error record."""
    if not (isinstance(value, dict) and isinstance(value.get("__error__"), dict)):
        return None
    err = value["__error__"]
    line = err.get("line") if isinstance(err.get("line"), int) else None
    return ProbeOutcome("", "error", error_type=str(err.get("type", "Error")),
                        error_message=str(err.get("message", "")), line=line).describe(display_path)


def topological_order(student, reference, options: Dict[str, Any]) -> Verdict:
    """Any valid reverse topological order passes (the property, not one order; Kahn's included).

    Every graph is judged on its own: a sort that raised on one graph (a constant asked for its parents) is still
    judged on the orders it returned on the others (the probe has graphs with no constant), and every
    misconception the orders show is named, the first failing graph's problem leading the message."""
    want = reference.value if isinstance(reference.value, list) else [reference.value]
    got = student.value if isinstance(student.value, list) else [student.value]
    if len(got) != len(want):
        return Verdict(0.0, "wrong number of graphs in the result")
    first: Optional[str] = None  # the first failing graph's problem
    named: List[str] = []
    evidence: List[str] = []  # the problems of later graphs that show a further misconception
    for i, (g, w) in enumerate(zip(got, want)):
        order = g.get("order") if isinstance(g, dict) else None
        crash = crash_text(order, str(options.get("display_path", "")))
        if crash is not None:
            finding = OrderFinding(crash)
        elif not isinstance(order, list):
            finding = OrderFinding("topological_sort did not return a sequence of variables")
        else:
            finding = judge_order(order, w["edges"], w["constants"], w["output"])
        if finding.problem is None:
            continue
        new = finding.misconception is not None and finding.misconception not in named
        if first is None:
            first = f"graph {i}: {finding.problem}"
        elif new:
            evidence.append(f"graph {i}: {finding.problem}")
        if new:
            named.append(str(finding.misconception))
    if first is None:
        return Verdict(1.0, "a valid reverse topological order on every graph")
    return Verdict(0.0, "; ".join([first] + evidence), misconception=named[0] if named else None,
                   also=tuple(named[1:]))


# ------------------------------------------------------------------ fan-out


def processing_order_finding(calls: List[List[Any]], edges: Sequence[Sequence[int]]) -> OrderFinding:
    """Judge the order in which a backward pass called `chain_rule` (first call per node).

    Over the edges between processed nodes: every user processed before its input is
    right; every one after it (the output last) is `order-not-reversed`; a mix is
    `not-topological`.
    """
    first: Dict[int, int] = {}
    for i, (node, _) in enumerate(calls):
        first.setdefault(node, i)
    right = wrong = 0
    example = None
    for user, inputs in enumerate(edges):
        for p in inputs:
            if user in first and p in first:
                if first[user] < first[p]:
                    right += 1
                else:
                    wrong += 1
                    example = example or (p, user)
    if not wrong:
        return OrderFinding()
    p, user = example
    if not right:
        return OrderFinding(
            f"backpropagate processed the nodes inputs first (node #{p} before node #{user}, which uses it): "
            "process them in reverse topological order, the output first", "order-not-reversed")
    return OrderFinding(
        f"backpropagate processed node #{p} before node #{user}, which uses it: a node's adjoint is complete only "
        "when every user has passed its contribution, so process nodes in reverse topological order",
        "not-topological")


def _single_contribution(calls: List[List[Any]], x: int, contributions: Sequence[float]) -> Optional[float]:
    """x's adjoint when backpropagate processed it, if that was one user's contribution and not their sum."""
    at_x = [d for node, d in calls if node == x]
    if len(at_x) != 1 or not isinstance(at_x[0], float):
        return None
    return at_x[0] if _one_of_not_sum(at_x[0], contributions) else None


def _users_got_theirs(calls: List[List[Any]], want: Dict[str, Any]) -> bool:
    """Every user of x was processed once, holding the adjoint the reference's run gave it: x's users were
    handed their contributions, so a single one at x is x's own adjoint overwritten (not, say, derivatives
    handed to only the first input of each node, which leaves a user with nothing)."""
    x, edges = want["x"], want["edges"]
    users = {i for i, inputs in enumerate(edges) if x in inputs}
    expected = {node: d for node, d in want["calls"] if node in users}
    seen: Dict[int, List[Any]] = {}
    for node, d in calls:
        if node in users:
            seen.setdefault(node, []).append(d)
    return bool(users) and all(
        len(seen.get(u, [])) == 1 and isinstance(seen[u][0], float) and isinstance(expected.get(u), float)
        and bool(np.isclose(seen[u][0], expected[u], rtol=ADJOINT_TOL, atol=ADJOINT_TOL)) for u in users)


def fan_out_evidence(got: List[Any], want: List[Dict[str, Any]]) -> Optional[Verdict]:
    """What the recorded backward passes show on the fan-out graphs (a -> x -> users -> out), if anything.

    `calls` lists `[node, adjoint]` for every `chain_rule` call in order. Nodes processed
    in a wrong order name the order's misconception (on any graph); x processed after all
    its users, once, holding a single user's contribution on EVERY graph, while every user held its own
    adjoint (`_users_got_theirs`), is `no-fanout-accumulation`.
    """
    records = [g if isinstance(g, dict) and isinstance(g.get("calls"), list) else None for g in got]
    if len(records) != len(want) or None in records:
        return None
    if not all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], int) for g in records for c in g["calls"]):
        return None
    for g, w in zip(records, want):
        finding = processing_order_finding(g["calls"], w["edges"])
        if finding.problem:
            return Verdict(0.0, finding.problem, misconception=finding.misconception)
    interior = [(g, w) for g, w in zip(records, want) if not w.get("leaf")]
    singles = [_single_contribution(g["calls"], w["x"], w["contributions"]) for g, w in interior]
    if interior and all(s is not None for s in singles) and all(_users_got_theirs(g["calls"], w) for g, w in interior):
        w = interior[-1][1]
        return Verdict(
            0.0,
            f"x has {len(w['contributions'])} users contributing {w['contributions']}; when backpropagate processed "
            f"it, its adjoint was {singles[-1]:g}, one user's contribution, instead of their sum "
            f"{sum(w['contributions']):g}: add each contribution to the adjoint (+=), do not overwrite it",
            misconception="no-fanout-accumulation",
        )
    return _leaf_overwritten(records, want)


def _leaf_overwritten(records: List[Dict[str, Any]], want: List[Dict[str, Any]]) -> Optional[Verdict]:
    """The leaf used by several users (the `"leaf"` rows) got one user's contribution instead of their sum on every
    such graph, while the interior x of the other graphs got the right sum: the leaves' adjoints are overwritten
    (`no-fanout-accumulation`, as x₁ of the slides' example: 367.04 instead of 368.04)."""
    leaves = [(g, w) for g, w in zip(records, want) if w.get("leaf")]
    others = [(g, w) for g, w in zip(records, want) if not w.get("leaf")]
    if not leaves or compare_values([g.get("dx") for g, _ in others], [w["dx"] for _, w in others],
                                    1e-12, 1e-12) is not None:
        return None
    got = [_maybe_number(g.get("dx")) for g, _ in leaves]
    if not all(d is not None and _one_of_not_sum(d, w["contributions"]) for d, (_, w) in zip(got, leaves)):
        return None
    w = leaves[-1][1]
    return Verdict(
        0.0,
        f"a leaf with {len(w['contributions'])} users contributing {w['contributions']} got {got[-1]:g}, one user's "
        f"contribution, instead of their sum {sum(w['contributions']):g} (an interior node with several users got "
        "its sum): a leaf's derivative is summed over its users too; add each contribution (+=, or "
        "accumulate_derivative once per contribution), do not overwrite it",
        misconception="no-fanout-accumulation",
    )


def _maybe_number(value: Any) -> Optional[float]:
    """A plain finite number as a float, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if np.isfinite(value) else None


def _one_of_not_sum(value: float, contributions: Sequence[float]) -> bool:
    """Whether `value` is one of the contributions and not their sum."""
    def close(a: float, b: float) -> bool:
        return bool(np.isclose(a, b, rtol=ADJOINT_TOL, atol=ADJOINT_TOL))

    return any(close(value, c) for c in contributions) and not close(value, sum(contributions))


def fan_out(student, reference, options: Dict[str, Any]) -> Verdict:
    """x used by several users, an interior node and then a leaf: its adjoint is the sum of their contributions
    (3.5 + 0.75, 3.5 + 0.75 + 2.5)."""
    got = student.value if isinstance(student.value, list) else []
    want = reference.value
    problem = compare_values([g.get("dx") if isinstance(g, dict) else g for g in got], [w["dx"] for w in want],
                             1e-12, 1e-12, "dx")
    if problem is None:
        return Verdict(1.0, "adjoints summed over every user")
    evidence = fan_out_evidence(got, want) or _derivative_in_an_attribute(got, want)
    if evidence is not None:
        return Verdict(0.0, f"{problem}. {evidence.message}", misconception=evidence.misconception)
    return Verdict(0.0, problem)


def _without_leaf_writes(value: Any) -> Any:
    """What mutant matching compares of a fan-out result: the records without `leaf_written` (what a student's
    process set on the leaves is this submission's own evidence, never a mutant's)."""
    if not isinstance(value, list):
        return value
    return [{k: v for k, v in r.items() if k != "leaf_written"} if isinstance(r, dict) else r for r in value]


fan_out.view = _without_leaf_writes  # type: ignore[attr-defined]


def _derivative_in_an_attribute(got: List[Any], want: List[Dict[str, Any]]) -> Optional[Verdict]:
    """No leaf got a derivative, but on every graph an attribute the student's process set on the leaf holds the
    leaf's right derivative (the grader's record of its requests and the values, `leaf_written`): `leaf.grad = d`
    instead of `leaf.accumulate_derivative(d)` (`leaf-not-accumulated`). A mark (`node.visited = True`) on a leaf
    that never got its derivative is no such evidence."""
    if len(got) != len(want) or not all(isinstance(g, dict) and g.get("dx") is None for g in got):
        return None
    names = None
    for g, w in zip(got, want):
        written = g.get("leaf_written") if isinstance(g.get("leaf_written"), dict) else {}
        holding = {str(n)[:40] for n, v in written.items()
                   if _maybe_number(v) is not None and np.isclose(v, w["dx"], rtol=ADJOINT_TOL, atol=ADJOINT_TOL)}
        names = holding if names is None else names & holding
    if not names:
        return None
    return Verdict(
        0.0,
        f"no leaf got a derivative, but backpropagate wrote each leaf's right derivative to its "
        f"{', '.join(repr(n) for n in sorted(names)[:3])} itself instead of calling leaf.accumulate_derivative(d), "
        "which adds d to whatever the leaf holds (`derivative` on a Scalar, `grad` on a Tensor)",
        misconception="leaf-not-accumulated",
    )


# ------------------------------------------------------------------ the seed and constants


def seed_scaled(student, reference, options: Dict[str, Any]) -> Verdict:
    """backpropagate(variable, deriv) with deriv != 1: every derivative is scaled by deriv.

    `seed-derivative-ignored` only when the values are exactly those of deriv = 1
    and some of them are not zero (zeros or missing derivatives prove nothing).
    """
    problem = compare_values(student.value, reference.value, 1e-9, 1e-12)
    if problem is None:
        return Verdict(1.0, "every derivative scaled by deriv")
    seed = float(options.get("seed", 2.5))
    try:
        unit = to_array(reference.value) / seed
        unscaled = bool(np.nanmax(np.abs(unit)) > 1e-9) \
            and compare_values(student.value, unit.tolist(), 1e-9, 1e-12) is None
    except (NotNumeric, ValueError):
        unscaled = False
    if unscaled:
        return Verdict(0.0, f"{problem}: the derivatives are those of deriv = 1; start reverse mode from "
                            f"deriv = {seed:g}", misconception="seed-derivative-ignored")
    return Verdict(0.0, problem)


def constants_skipped(student, reference, options: Dict[str, Any]) -> Verdict:
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


# ------------------------------------------------------------ complexity and recursion judges
# (work counted on instrumented graphs, time ratios, deep chains: autodiff's own evidence)


def _work(row: Dict[str, Any]) -> int:
    """Uses of chain_rule and parents (and, for topological_sort measured alone, the nodes it yielded)."""
    return int(row.get("chain_rule", 0)) + int(row.get("parents", 0)) + int(row.get("yielded", 0))


def work_growth(rows: List[Dict[str, Any]], budget: Optional[int] = None) -> Optional[str]:
    """How the work grows with the node count over the measured sizes (the last pair that tells).

    Between two sizes with node ratio q and work ratio r: linear if r <= 1.5 q,
    "quadratic" if r <= 1.5 q^2, else "exponential" (on diamond chains the path count
    squares when the layers double). A size stopped over `budget` only bounds r from
    below; None when nothing shows a growth faster than linear.
    """
    done = [r for r in rows if isinstance(r, dict) and r.get("nodes")]
    verdict = None
    for a, b in zip(done, done[1:]):
        if a.get("exceeded"):
            break
        q = b["nodes"] / max(a["nodes"], 1)
        if b.get("exceeded"):
            bound = budget if budget is not None else _work(b)
            r_at_least = bound / max(_work(a), 1)
            if r_at_least > 1.5 * q * q:
                return "exponential"
            return verdict or ("quadratic" if r_at_least > 1.5 * q else None)
        r = _work(b) / max(_work(a), 1)
        verdict = "exponential" if r > 1.5 * q * q else "quadratic" if r > 1.5 * q else verdict
    return verdict


#: the misconception a growth names, and what the student is told
GROWTH = {
    "exponential": ("path-recursion", ": the work grows with the number of paths, which doubles with every layer"),
    "quadratic": ("quadratic-traversal", ": the work grows with the square of the graph size (each node re-walks "
                                         "the graph, or the order is recomputed inside the loop)"),
    None: (None, ": each node should be visited a constant number of times"),
}


#: how a family of work rows is worded (default: "<family> diamond chains"), and what its work counts
FAMILIES = {
    "backpropagate": ("diamond chains", "uses of chain_rule/parents"),
    "topological_sort": ("diamond chains by topological_sort alone", "uses of parents and nodes yielded"),
}


def _work_family(rows: Any, ref_rows: List[Dict[str, Any]], factor: float, what: str,
                 counted: str = "uses of chain_rule/parents") -> Optional[Verdict]:
    """The failure on one family of graphs (rows per size), or None if its work is linear and its derivatives right."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        return Verdict(0.0, f"no measurements on {what}")
    for i, (row, ref) in enumerate(zip(rows, ref_rows)):
        work, ref_work = _work(row), _work(ref)
        if row.get("exceeded") or work > factor * ref_work + 10:
            misconception, why = GROWTH[work_growth(rows[: i + 1])]
            more = "more than " if row.get("exceeded") else ""
            return Verdict(
                0.0,
                f"{more}{work} {counted} on {what} of {ref['layers']} layers, {ref['nodes']} nodes "
                f"(the reference needs {ref_work}){why}",
                misconception=misconception,
            )
    if len(rows) < len(ref_rows):
        return Verdict(0.0, f"the measurement on {what} stopped early")
    problem = compare_values([r.get("derivative") for r in rows], [r.get("derivative") for r in ref_rows], 1e-9, 1e-12)
    if problem:
        return Verdict(0.0, f"wrong derivatives on {what} (work counts only when the derivatives are right): {problem}")
    return None


def linear_work(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Work (chain_rule + parents uses) must grow linearly with nodes, within `factor` of the reference,
    and the derivatives computed in the same runs must be right.

    The probe returns rows per size, or a mapping of graph families (e.g. Scalars, Tensors; backpropagate and
    topological_sort alone) to rows, or to the error a family raised; every family must pass, and each is judged
    on its own (a family that crashed hides no other's growth). Work growing quadratically names
    `quadratic-traversal`, exponentially (with the path count) `path-recursion`; every name a family shows is
    given, the first failing family's problem leading the message.
    """
    factor = float(options.get("factor", 6.0))
    families = reference.value if isinstance(reference.value, dict) else {"": reference.value}
    value = student.value if isinstance(reference.value, dict) else {"": student.value}
    value = value if isinstance(value, dict) else {}
    first = next(iter(families))
    figure = {"kind": "work", "student": value.get(first), "reference": families[first]}
    failures: List[Verdict] = []
    for name, ref_rows in families.items():
        what, counted = FAMILIES.get(name, (f"{name} diamond chains" if name else "diamond chains",
                                            "uses of chain_rule/parents"))
        crash = crash_text(value.get(name), str(options.get("display_path", "")))
        failure = Verdict(0.0, crash) if crash is not None else \
            _work_family(value.get(name), ref_rows, factor, what, counted)
        if failure is not None:
            failure.figure = {"kind": "work", "student": value.get(name) if crash is None else None,
                              "reference": ref_rows}
            failures.append(failure)
    if not failures:
        return Verdict(1.0, "work grows linearly with the number of nodes", figure=figure)
    named: List[str] = []
    messages = [failures[0].message]
    for failure in failures:
        if failure.misconception is not None and failure.misconception not in named:
            named.append(failure.misconception)
            if failure is not failures[0]:
                messages.append(failure.message)
    shown = next((f for f in failures if f.misconception is not None and f.figure and f.figure["student"]),
                 failures[0])
    return Verdict(0.0, "; ".join(messages), misconception=named[0] if named else None, also=tuple(named[1:]),
                   figure=shown.figure)


def _derivatives_only(value: Any) -> Any:
    """What mutant matching compares for a work measurement: the derivatives, not the counts
    (many unrelated bugs walk the graph the same number of times)."""
    if isinstance(value, dict):
        return {k: _derivatives_only(v) for k, v in value.items()}
    if isinstance(value, list):
        return [r.get("derivative") if isinstance(r, dict) else None for r in value]
    return None


linear_work.view = _derivatives_only  # type: ignore[attr-defined]


def same_graphs_as(tag: Any) -> Any:
    """The row whose graphs a `more` row of the timing probe measured again ("more2n8000" -> "n8000",
    "more1n8000" -> "again8000": even rounds repeat the first rows, odd ones the again rows); else the tag."""
    if not (isinstance(tag, str) and tag.startswith("more")):
        return tag
    round_, _, n = tag[len("more"):].partition("n")
    return f"n{n}" if round_.isdigit() and int(round_) % 2 == 0 else f"again{n}"


def timed_derivatives_problem(rows: List[Dict[str, Any]], ref_rows: List[Dict[str, Any]]) -> Optional[str]:
    """None if every timed run's leaf derivatives equal the reference's on the same graph, else why not.

    Rows are matched by their tag (a row measuring graphs again, by theirs); a row that stopped early is checked
    on the runs it made.
    """
    want = {r.get("tag"): r.get("derivatives") for r in ref_rows}
    for row in rows:
        got, expected = row.get("derivatives"), want.get(same_graphs_as(row.get("tag")))
        if not isinstance(got, list) or not got or not isinstance(expected, list) or len(got) > len(expected):
            return f"graph of {row.get('nodes')} nodes: no leaf derivatives were recorded"
        problem = compare_values(got, expected[: len(got)], 1e-9, 1e-12,
                                 f"leaf derivatives, graph of {row.get('nodes')} nodes")
        if problem:
            return problem
    return None


def _rows(value: Dict[str, Any], key: str) -> Optional[List[Dict[str, Any]]]:
    rows = value.get(key, [])
    return rows if isinstance(rows, list) and all(isinstance(r, dict) for r in rows) else None


def pooled_best(timed: List[Dict[str, Any]]) -> Dict[int, float]:
    """{node count: the best parent-timed seconds over every row of that size} (rows with seconds only)."""
    best: Dict[int, float] = {}
    for row in timed:
        nodes, seconds = row.get("nodes"), row.get("seconds")
        if isinstance(nodes, int) and isinstance(seconds, float):
            best[nodes] = min(best.get(nodes, float("inf")), seconds)
    return best


def sweep_best(rows: List[Dict[str, Any]]) -> Dict[int, float]:
    """{node count: the best time of the grader's own linear pass over that size's graphs} (the probe's `_sweep`,
    timed by the trusted process's own thread clock after each row's first run: `sweep`)."""
    best: Dict[int, float] = {}
    for row in rows:
        nodes, sweep = row.get("nodes"), row.get("sweep")
        if isinstance(nodes, int) and isinstance(sweep, float) and sweep > 0 and not row.get("exceeded"):
            best[nodes] = min(best.get(nodes, float("inf")), sweep)
    return best


def multiples_of_sweep(timed: List[Dict[str, Any]], sweeps: Dict[int, float]) -> Dict[int, float]:
    """{node count: the student's best time there over the grader's linear pass's best} for every size with both."""
    best = pooled_best(timed)
    return {nodes: best[nodes] / sweeps[nodes] for nodes in best if nodes in sweeps}


#: the most the grader's own linear pass's ratio may excuse when the graph doubles: the pass is linear, and its
#: best of 3 measured 1.85-2.34 beside CPU and memory hogs; a larger ratio is the machine's doing (or the cache
#: thrashed on purpose while it ran) and excuses no more than this (a pooled ratio of at most 2.4 x 1.45 ≈ 3.5;
#: quadratic cases measure 3.57 and more)
MAX_SWEEP_RATIO = 2.4
#: a linear pass that grew less than this when the graph doubled was disturbed (best of 3 measured 1.85-2.34 beside
#: CPU and memory hogs): a verdict of quadratic beside it says that a regrade may differ
DISTURBED_SWEEP_RATIO = 1.7

#: a multiple of the grader's pass that grew at least this much from the smallest timed size to the largest (4x the
#: nodes) names the traversal quadratic when some size is over `max_slowdown`: linear work keeps its multiple, a
#: quadratic term makes it grow (a quadratic of small constant padded at the middle size: 6x -> 16x, 11x under load)
MULTIPLE_GROWTH_QUADRATIC = 1.6


def grows_faster_than_linear(multiples: Dict[int, float]) -> bool:
    """Whether the student's time over the grader's linear pass grew >= MULTIPLE_GROWTH_QUADRATIC times from the
    smallest size to the largest (time / pass ∝ n for a quadratic, flat for linear work)."""
    if len(multiples) < 2:
        return False
    smallest, largest = min(multiples), max(multiples)
    return multiples[largest] >= MULTIPLE_GROWTH_QUADRATIC * multiples[smallest]


#: each doubling of a linear traversal's graph at least this much slower (linear ≈ 2; time padded to a constant ≈ 1)
LINEAR_DOUBLING = 1.6


def steady_slowdown(ratios: List[float], multiples: Dict[int, float], bound: float) -> bool:
    """Time that grows like the graph at every doubling (LINEAR_DOUBLING to `bound`) while its multiple of the
    grader's linear pass stays flat (within MULTIPLE_GROWTH_QUADRATIC either way): linear work with a costly step per
    node, or a quadratic hidden under padding that grows with the graph; the timings cannot tell them apart."""
    if not ratios or len(multiples) < 2:
        return False
    first, last = multiples[min(multiples)], multiples[max(multiples)]
    flat = first / MULTIPLE_GROWTH_QUADRATIC < last < first * MULTIPLE_GROWTH_QUADRATIC
    return flat and all(LINEAR_DOUBLING <= r <= bound for r in ratios)


def time_ratio(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Doubling the largest graph must not much more than double the time.

    Timed in CPU time that the parent reads from the kernel (the CPU clocks of the child's whole tree: every
    thread and process) at marks the child sends before and after each run (it waits for each to be read):
    code in the child cannot fake it, and waiting for a busy CPU does not count. Robust against a busy machine:
    the best of 2 or 3 runs per size (a third when the first two disagree; up to 16000 nodes, where a quadratic
    term dominates), the largest pair measured again on other graphs, and while its ratio is near the bound, in
    up to 4 more rounds; load can only slow a
    run down, so the best time per size over all its runs is kept and the verdict is their ratio. Linear work
    gives ≈ 2, quadratic ≈ 4; the bound (`max_ratio`, 3.3 in problem.toml) sits between.

    Each size is also compared with the grader's own linear pass over the same graph (`sweep_best`), timed after
    each row's first run by the trusted process's own thread clock (no code of the student's can add to it):
    - the pair's ratio over the pass's ratio is how much faster than linear work the time grew (linear ≈ 1,
      quadratic ≈ 2: measured 0.94-1.12 and 1.72-2.18, quiet and beside CPU and memory hogs); the cache and the
      machine slow both alike, so a linear solution whose ratio a busy machine pushed over `max_ratio` still
      passes when this growth is at most `max_growth` (1.45; the pass's ratio counted up to MAX_SWEEP_RATIO).
      A verdict of quadratic needs both over their bounds;
    - right linear traversals take 2-4x that pass (measured: every valid case 2.0-3.6x), so time padded evenly
      across sizes (a flat ratio that hides a quadratic) costs the points when the student's best time at some
      size is over `max_slowdown` (12) times the pass's.
    """
    value = student.value if isinstance(student.value, dict) else {}
    rows, again, more = _rows(value, "rows"), _rows(value, "again"), _rows(value, "more")
    bound = float(options.get("max_ratio", 3.0))
    max_growth = float(options.get("max_growth", 1.45))
    if rows is None or again is None or more is None:
        return Verdict(0.0, "malformed timing data")
    ref = reference.value
    ref_rows = ref["rows"] + ref["again"] + ref.get("more", [])
    wrong = timed_derivatives_problem(rows + again + more, ref_rows)
    raw = rows + again + more
    rows, again, more = (parent_timed(r, student.marks) for r in (rows, again, more))
    figure = {"kind": "time", "student": rows, "reference": parent_timed(ref["rows"], reference.marks)}
    if rows and rows[-1].get("exceeded"):
        return Verdict(
            0.0,
            f"more than {rows[-1].get('budget')} uses of chain_rule/parents on a graph of {rows[-1].get('nodes')} "
            "nodes: the work is not linear in the graph size (see the work test)",
            figure=figure,
        )
    if wrong:
        return Verdict(0.0, "the timed runs computed wrong derivatives, and time only counts for right results: "
                            f"{wrong}", figure=figure)
    if student.marks is None or not all(isinstance(r.get("seconds"), float) for r in rows + again + more):
        return Verdict(0.0, "the timing marks are missing or were sent twice (nothing else may send them)",
                       figure=figure)
    ratios = [b["seconds"] / max(a["seconds"], 1e-9) for a, b in zip(rows, rows[1:])]
    sweeps = sweep_best(raw)
    multiples = multiples_of_sweep(rows + again + more, sweeps)
    limit = float(options.get("max_slowdown", 12.0))
    skipped = value.get("again_skipped") is True and not again  # the trusted probe found the largest pair linear
    # a time far from linear work is named quadratic when the largest size, where a quadratic term dominates, is still
    # over half the bound (linear traversals take 2-4x the pass), or when the multiple grows with the graph
    largest = rows[-1].get("nodes") if rows else None
    over = multiples.get(largest, 0.0) > limit / 2 if largest is not None else False
    growing = grows_faster_than_linear(multiples)
    if len(rows) < len(ref["rows"]) or (len(again) < len(ref["again"]) and not skipped):
        text = ", ".join(f"{r:.2f}" for r in ratios) or "none"
        # a last ratio over the bound, or the multiple of the grader's pass named as below (time padded at some
        # sizes, or evenly, so that the last ratio looks linear shows there)
        grows = (bool(ratios) and ratios[-1] > bound) or over or growing
        return Verdict(
            0.0,
            f"the timing stopped early: {rows[-1]['nodes']} nodes took {rows[-1]['seconds']:.1f} s (the reference "
            f"needs well under 0.1 s); time ratios when the graph doubles: {text}"
            + (f"; {multiples[largest]:.0f}x the time of the grader's own linear pass over the same graph there "
               "(linear traversals take 2-4x)" if largest in multiples and (over or growing) else ""),
            misconception="quadratic-traversal" if grows else None,
            figure=figure,
        )
    # every size, whatever the ratios say: time padded at some sizes only (a middle size slowed so that the largest
    # pair looks linear) shows here as it does when padded evenly
    if multiples and max(multiples.values()) > limit:
        nodes = max(multiples, key=lambda n: multiples[n])
        if steady_slowdown(ratios, multiples, bound):
            return Verdict(
                0.0,
                f"the time grows like the graph (ratios when it doubles: {', '.join(f'{r:.2f}' for r in ratios)}), "
                f"but at {nodes} nodes backpropagate took {multiples[nodes]:.0f}x the time of the grader's own linear "
                f"pass over the same graph (linear traversals take 2-4x, the bound is {limit:g}x), and about as many "
                "times at every size: look for a costly step repeated for every node (a copy of a list or dict, a "
                "sort, building objects). Course staff will read backpropagate: time is only worth points for work "
                "that grows like the graph, and padding that grows with it looks the same",
                figure=figure,
                review=f"{multiples[nodes]:.0f}x the grader's linear pass at every size, time growing like the graph: "
                       "a slow linear traversal (the points are the TA's to give) or a quadratic hidden by padding; "
                       "read backpropagate",
            )
        smallest, top = min(multiples), max(multiples)  # the sizes `grows_faster_than_linear` compares
        return Verdict(
            0.0,
            f"at {nodes} nodes backpropagate took {multiples[nodes]:.0f}x the time of the grader's own linear pass "
            f"over the same graph, measured beside it (linear traversals take 2-4x, the bound is {limit:g}x)"
            + (f", and {multiples[largest]:.0f}x at {largest} nodes" if nodes != largest and over else "")
            + (f"; the multiple grew from {multiples[smallest]:.0f}x at {smallest} nodes to "
               f"{multiples[top]:.0f}x at {top}" if growing and not over else "")
            + (": the work is not linear in the graph size" if over or growing else "")
            + ": time is only worth points for work that grows like the graph, at every size, not for time spent "
              "evenly",
            misconception="quadratic-traversal" if over or growing else None,
            figure=figure,
        )
    best = pooled_best(rows[-2:] + again + more)
    if len(best) < 2:
        return Verdict(0.0, "malformed timing data: fewer than two graph sizes were timed", figure=figure)
    small, large = sorted(best)[-2:]
    pooled = best[large] / max(best[small], 1e-9)
    runs = sum(len(r.get("runs") or []) for r in rows[-2:] + again + more)
    text = (", ".join(f"{r:.2f}" for r in ratios) + f"; best of {runs} runs of the largest pair: {pooled:.2f}")
    growth, linear = None, None
    if small in sweeps and large in sweeps:
        linear = sweeps[large] / sweeps[small]
        growth = pooled / min(linear, MAX_SWEEP_RATIO)
        text += f" (the grader's linear pass over the same graphs: {linear:.2f}, so the time grew {growth:.2f}x as " \
                "fast as linear work)"
    if pooled <= bound or (growth is not None and growth <= max_growth):
        return Verdict(1.0, f"time ratios when the graph doubles: {text}; linear ≈ 2", figure=figure)
    busy = ""
    if linear is not None and linear < DISTURBED_SWEEP_RATIO:
        busy = (f" (the grader's own linear pass grew only {linear:.2f}x where linear work "
                "doubles: the machine disturbed this measurement, and a regrade on a quieter one may differ)")
    return Verdict(
        0.0,
        f"time ratios when the graph doubles: {text}; linear work gives ≈ 2 (1x as fast as linear work), quadratic "
        f"≈ 4 (2x){busy}. "
        "Look for a membership test on a list (`x in some_list`), list.index/insert(0, ...) "
        "or repeated scans inside the loop",
        misconception="quadratic-traversal",
        figure=figure,
    )


def _timed_derivatives(value: Any) -> Any:
    """What mutant matching compares for the timing probe: the first rows' derivatives only (every run measures
    them; the again rows are measured or not as the run's own timing says: `again_skipped`)."""
    if not isinstance(value, dict):
        return None
    return [r.get("derivatives") if isinstance(r, dict) else None for r in value.get("rows") or []]


time_ratio.view = _timed_derivatives  # type: ignore[attr-defined]


def deep_chain(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """The chain's derivative, at the default recursion limit.

    Recursion is judged on what the traversal did, not on the limit it left behind: a RecursionError,
    the limit left raised, or the graph used with more Python frames on the stack than the default
    limit allows (`stack_beyond_limit`: the limit was moved during the call, by whatever path, and
    restored) are all `recursion-limit`.
    """
    if not student.ok:
        if student.status == "error" and student.error_type == "RecursionError":
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
    if isinstance(student.value, dict) and student.value.get("stack_beyond_limit") is True:
        return Verdict(
            0.0,
            "the traversal went as deep as Python's default recursion limit allows, or deeper (one stack frame "
            "per node of the chain): it is recursive, and only a moved limit gets it through a deep graph; "
            "use an explicit stack instead",
            misconception="recursion-limit",
        )
    return allclose(student, reference, options)


deep_chain.handles_errors = True  # type: ignore[attr-defined]  # a RecursionError is its evidence


JUDGES = {
    "linear_work": linear_work,
    "time_ratio": time_ratio,
    "deep_chain": deep_chain,
    "topological_order": topological_order,
    "fan_out": fan_out,
    "seed_scaled": seed_scaled,
    "constants_skipped": constants_skipped,
}
