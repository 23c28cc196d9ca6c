"""Parent-side judges for `autodiff`: orders, fan-out, the seed and constants, judged as properties.

Every misconception named here rests on evidence about this submission's own
data (the order its `topological_sort` returned, the sequence of `chain_rule`
calls its `backpropagate` made, the values it computed), never on a resemblance
alone (an exception type shared with some mutant, all-zero derivatives).
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from graders.judge import NotNumeric, Verdict, compare_values, to_array

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


def _first_violation(order: Sequence[int], edges: Sequence[Sequence[int]], inputs_first: bool) -> Optional[Tuple[int, int]]:
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


def judge_order(order: Sequence[Any], edges: Sequence[Sequence[int]], constants: Sequence[int], output: int) -> OrderFinding:
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


def topological_order(student, reference, options: Dict[str, Any]) -> Verdict:
    """Any valid reverse topological order passes (the property, not one order; Kahn's included)."""
    want = reference.value if isinstance(reference.value, list) else [reference.value]
    got = student.value if isinstance(student.value, list) else [student.value]
    if len(got) != len(want):
        return Verdict(0.0, "wrong number of graphs in the result")
    for i, (g, w) in enumerate(zip(got, want)):
        order = g.get("order") if isinstance(g, dict) else None
        if not isinstance(order, list):
            return Verdict(0.0, f"graph {i}: topological_sort did not return a sequence of variables")
        finding = judge_order(order, w["edges"], w["constants"], w["output"])
        if finding.problem:
            return Verdict(0.0, f"graph {i}: {finding.problem}", misconception=finding.misconception)
    return Verdict(1.0, "a valid reverse topological order on every graph")


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
    adjoint = at_x[0]
    close = lambda a, b: bool(np.isclose(a, b, rtol=ADJOINT_TOL, atol=ADJOINT_TOL))
    if any(close(adjoint, c) for c in contributions) and not close(adjoint, sum(contributions)):
        return adjoint
    return None


def fan_out_evidence(got: List[Any], want: List[Dict[str, Any]]) -> Optional[Verdict]:
    """What the recorded backward passes show on the fan-out graphs (a -> x -> users -> out), if anything.

    `calls` lists `[node, adjoint]` for every `chain_rule` call in order. Nodes processed
    in a wrong order name the order's misconception (on any graph); x processed after all
    its users, once, holding a single user's contribution on EVERY graph is
    `no-fanout-accumulation`.
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
    singles = [_single_contribution(g["calls"], w["x"], w["contributions"]) for g, w in zip(records, want)]
    if all(s is not None for s in singles):
        w = want[-1]
        return Verdict(
            0.0,
            f"x has {len(w['contributions'])} users contributing {w['contributions']}; when backpropagate processed "
            f"it, its adjoint was {singles[-1]:g}, one user's contribution, instead of their sum "
            f"{sum(w['contributions']):g}: add each contribution to the adjoint (+=), do not overwrite it",
            misconception="no-fanout-accumulation",
        )
    return None


def fan_out(student, reference, options: Dict[str, Any]) -> Verdict:
    """x used by several users: its adjoint is the sum of their contributions (3 + 0.75, 3 + 0.75 + 2.5)."""
    got = student.value if isinstance(student.value, list) else []
    want = reference.value
    problem = compare_values([g.get("dx") if isinstance(g, dict) else g for g in got], [w["dx"] for w in want],
                             1e-12, 1e-12, "dx")
    if problem is None:
        return Verdict(1.0, "adjoints summed over every user")
    evidence = fan_out_evidence(got, want)
    if evidence is not None:
        return Verdict(0.0, f"{problem}. {evidence.message}", misconception=evidence.misconception)
    return Verdict(0.0, problem)


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
        unscaled = bool(np.nanmax(np.abs(unit)) > 1e-9) and compare_values(student.value, unit.tolist(), 1e-9, 1e-12) is None
    except (NotNumeric, ValueError):
        unscaled = False
    if unscaled:
        return Verdict(0.0, f"{problem}: the derivatives are those of deriv = 1; start reverse mode from deriv = {seed:g}",
                       misconception="seed-derivative-ignored")
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


JUDGES = {
    "topological_order": topological_order,
    "fan_out": fan_out,
    "seed_scaled": seed_scaled,
    "constants_skipped": constants_skipped,
}
