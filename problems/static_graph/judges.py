"""Parent-side judges for `static_graph`: lazy evaluation, deep graphs and symbolic gradients, judged as properties.

Every misconception named here rests on this submission's own data: the nodes its
`Session.run` evaluated (recorded by the probe around the reference
`Session._evaluate` and the op kernels), set against the graph's structure (which
nodes each fetch needs, which it reaches only through a fed node, which it does
not reach at all), the error it raised, or the gradient values it produced set
against each user's contribution. A resemblance to an instructor mutant names
nothing here.

The structure of each graph is taken from the reference run (the probe is the
same code on both sides, so the nodes carry the same names).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set

import numpy as np

from graders.api import NotNumeric, ProbeOutcome, Verdict, compare_values, describe_value, error_text, to_array

#: values computed by the same kernels in the same order: equal up to rounding
VALUE_RTOL, VALUE_ATOL = 1e-12, 1e-12
#: gradients: another (valid) accumulation order may round differently
GRADIENT_RTOL, GRADIENT_ATOL = 1e-9, 1e-12

#: when one run shows several mistakes, the one named (the most telling first)
PRIORITY = ("evaluates-every-node", "fed-node-recomputed", "reevaluates-shared-nodes", "unfed-placeholder-unchecked")

REREAD_LAZY = ("A Session.run evaluates only the nodes the fetches depend on, each once, in topological order "
               "(inputs before users); a fed node takes the fed value and its inputs are not needed")


# ------------------------------------------------------------------ graph structure


@dataclass
class Structure:
    """A graph as the probe described it: name -> {"op", "inputs", "kernel"}."""

    nodes: Dict[str, Dict[str, Any]]

    def inputs(self, name: str) -> List[str]:
        entry = self.nodes.get(name)
        return list(entry.get("inputs", [])) if isinstance(entry, dict) else []

    def op(self, name: str) -> str:
        entry = self.nodes.get(name)
        return str(entry.get("op", "")) if isinstance(entry, dict) else ""

    def has_kernel(self, name: str) -> bool:
        entry = self.nodes.get(name)
        return bool(entry.get("kernel")) if isinstance(entry, dict) else False

    def ancestors(self, roots: Iterable[str], stop: Iterable[str] = ()) -> Set[str]:
        """The roots and every node they depend on; the inputs of nodes in `stop` are not followed."""
        stop_set, found, stack = set(stop), set(), list(roots)
        while stack:
            name = stack.pop()
            if name in found:
                continue
            found.add(name)
            if name not in stop_set:
                stack.extend(self.inputs(name))
        return found


@dataclass
class Regions:
    """Where each node of the graph stands with respect to one run's fetches and feeds."""

    needed: Set[str]  # the fetches and what they depend on, stopping at fed nodes (fed nodes included)
    cut: Set[str]  # reached by the fetches only through a fed node
    unrelated: Set[str]  # not reached by the fetches at all

    @classmethod
    def of(cls, graph: Structure, fetch: Sequence[str], fed: Sequence[str]) -> Regions:
        needed = graph.ancestors(fetch, stop=fed)
        everything = graph.ancestors(fetch)
        return cls(needed, everything - needed, set(graph.nodes) - everything)


# ------------------------------------------------------------------ one run


@dataclass
class CaseFinding:
    """What is wrong with one `sess.run` (None: nothing) and the misconception its data shows."""

    problem: Optional[str] = None
    misconception: Optional[str] = None


def _names(names: Iterable[str], limit: int = 4) -> str:
    names = sorted(names)
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _error(value: Any) -> Optional[Dict[str, Any]]:
    return value["__error__"] if isinstance(value, dict) and isinstance(value.get("__error__"), dict) else None


def is_error(err: Dict[str, Any], name: str) -> bool:
    """Whether an error record is of the class `name` or of a subclass of it (probekit records the bases)."""
    ancestors = err.get("ancestors")
    return err.get("type") == name or (isinstance(ancestors, list) and name in ancestors)


def _expected_error(label: str, got: Any, want: Dict[str, Any], must_name: Optional[str], path: str) -> CaseFinding:
    """The reference raised (a needed placeholder was not fed): the student must raise the same error type."""
    err = _error(got)
    want_type = str(want.get("type"))
    if err is None:
        return CaseFinding(f"{label}: expected {want_type} (a placeholder the fetch needs was not fed), "
                           "but the run returned a value")
    if not is_error(err, want_type):  # the class or a subclass of it (the record names its bases)
        return CaseFinding(f"{label}: raised {error_text(got, path)}; expected {want_type} "
                           f"(mini_tf.{want_type}, as TF1 raises for a needed placeholder that was not fed)")
    if must_name and not re.search(rf"(?<![\w/]){re.escape(must_name)}(?![\w/])", str(err.get("message", ""))):
        return CaseFinding(f"{label}: the {want_type} does not name the placeholder '{must_name}' that must be "
                           f"fed (message: {str(err.get('message', ''))[:160]!r})")
    return CaseFinding()


def _unchecked_placeholder(label: str, evaluations: Any, graph: Structure, fed: Sequence[str]) -> Optional[CaseFinding]:
    """The run handed an unfed placeholder to `Session._evaluate` (the trusted record): no check of the student's
    stopped it, and the error came from the given kernel, which cannot compute a placeholder (its message names
    the node by chance). None when no unfed placeholder was asked for."""
    asked = [n for n in evaluations if isinstance(n, str)] if isinstance(evaluations, list) else []
    unfed = sorted({n for n in asked if n in graph.nodes and graph.op(n) == "Placeholder" and n not in fed})
    if not unfed:
        return None
    return CaseFinding(
        f"{label}: the run asked Session._evaluate to compute the placeholder {_names(unfed)}, which was not fed: "
        "the error came from the op kernel (a placeholder has no value to compute), not from a check of yours. "
        "Before computing, check every placeholder of the order: one that is not fed raises InvalidArgumentError "
        "naming it", "unfed-placeholder-unchecked")


def _unneeded_placeholder_error(label: str, got: Any, graph: Structure, regions: Regions, fed: Sequence[str],
                                path: str) -> CaseFinding:
    """The student raised InvalidArgumentError where the reference ran: which unfed placeholders could it be about?"""
    unfed = {n for n in graph.nodes if graph.op(n) == "Placeholder" and n not in fed}
    text = error_text(got, path)
    message = str((_error(got) or {}).get("message", ""))
    named_fed = [n for n in fed if graph.op(n) == "Placeholder" and f"'{n}'" in message]
    if named_fed:
        return CaseFinding(
            f"{label}: raised {text}, but '{named_fed[0]}' was fed: check the placeholders against `feeds`, the "
            "feed_dict as the given _prepare_feeds resolved it (a key may be a node or its name), not against "
            "feed_dict itself")
    if unfed and unfed <= regions.unrelated:
        return CaseFinding(
            f"{label}: raised {text}, but the fetch does not depend on {_names(unfed)} at all: only the "
            "placeholders the fetches need must be fed, so compute (and check) only the nodes the fetches "
            "depend on", "evaluates-every-node")
    if unfed and unfed <= regions.cut:
        return CaseFinding(
            f"{label}: raised {text}, but the fetch reaches {_names(unfed)} only through a fed node: a fed "
            "node's value replaces its computation, so its inputs are not needed (do not expand a fed node "
            "in the topological order)", "fed-node-recomputed")
    return CaseFinding(f"{label}: raised {text}")


def _evaluation_finding(label: str, evaluations: Sequence[str], want: Sequence[str], graph: Structure,
                        regions: Regions) -> CaseFinding:
    """Each needed node once, nothing else, inputs before users."""
    counts = Counter(evaluations)
    want_set = set(want)
    extra = set(counts) - want_set
    unrelated = extra & regions.unrelated
    if unrelated:
        return CaseFinding(
            f"{label}: evaluated {len(unrelated)} node(s) the fetches do not depend on ({_names(unrelated)}); "
            f"the run needs {len(want)} evaluations, yours made {len(evaluations)}. {REREAD_LAZY}",
            "evaluates-every-node")
    cut = extra & regions.cut
    if cut:
        return CaseFinding(
            f"{label}: evaluated {_names(cut)}, which the fetch reaches only through a fed node: the fed value "
            f"replaces that node's computation, so its inputs are not needed. {REREAD_LAZY}",
            "fed-node-recomputed")
    repeated = {n: c for n, c in counts.items() if c > 1}
    if repeated:
        name, times = max(repeated.items(), key=lambda item: (item[1], item[0]))
        return CaseFinding(
            f"{label}: node '{name}' was evaluated {times} times in one run ({len(repeated)} node(s) more than "
            f"once; {len(evaluations)} evaluations instead of {len(want)}): a node used by several users, or "
            "needed by several fetches, is computed once per run and its value reused", "reevaluates-shared-nodes")
    if extra:
        return CaseFinding(f"{label}: evaluated {_names(extra)}, which the run does not need")
    missing = {n for n in want_set - set(counts) if graph.has_kernel(n)}
    if missing:
        return CaseFinding(f"{label}: {_names(missing)} never went through Session._evaluate although the fetch "
                           "needs it: compute every needed node that is not fed with self._evaluate(node, inputs)")
    first = {}
    for i, n in enumerate(evaluations):
        first.setdefault(n, i)
    for n in evaluations:
        late = [p for p in graph.inputs(n) if p in first and first[p] > first[n]]
        if late:
            return CaseFinding(f"{label}: '{n}' was evaluated before its input '{late[0]}': evaluate in "
                               "topological order, every node after all of its inputs")
    return CaseFinding()


def judge_case(got: Any, want: Dict[str, Any], graph: Structure, path: str) -> CaseFinding:
    """One `sess.run` of the student against the reference's run of the same fetches and feeds."""
    label = str(want.get("label", "run"))
    if not isinstance(got, dict):
        return CaseFinding(f"{label}: no result")
    fetch, fed = list(want.get("fetch", [])), list(want.get("fed", []))
    regions = Regions.of(graph, fetch, fed)
    want_error = _error(want.get("value"))
    if want_error is not None:
        return _unchecked_placeholder(label, got.get("evaluations"), graph, fed) or \
            _expected_error(label, got.get("value"), want_error, want.get("must_name"), path)
    err = _error(got.get("value"))
    if err is not None:
        if is_error(err, "InvalidArgumentError"):
            return _unneeded_placeholder_error(label, got.get("value"), graph, regions, fed, path)
        return CaseFinding(f"{label}: raised {error_text(got.get('value'), path)}")
    evaluations = got.get("evaluations")
    if not isinstance(evaluations, list) or not all(isinstance(n, str) for n in evaluations):
        return CaseFinding(f"{label}: the evaluations could not be read")
    # what was evaluated first: a wrong value is often the consequence
    finding = _evaluation_finding(label, evaluations, want.get("evaluations", []), graph, regions)
    if finding.misconception:  # the trusted record's evidence stands whatever else the run passed on
        return finding
    outside = got.get("outside")
    if outside:
        return CaseFinding(
            f"{label}: {', '.join(str(n) for n in outside[:4])} held values that Session._evaluate did not "
            "compute and no feed gave: compute every needed node that is not fed with "
            "self._evaluate(node, inputs) (the grader answers and counts the evaluations there) and pass those "
            "values on")
    try:
        problem = compare_values(got.get("value"), want.get("value"), VALUE_RTOL, VALUE_ATOL, "value")
    except NotNumeric as exc:
        problem = f"value: {exc}"
    if problem:
        return CaseFinding(f"{label}: {problem}")
    if finding.problem is None and "reported" in want and not _same_run(_reported(got), list(evaluations), graph):
        return CaseFinding(f"{label}: Session.last_run_evaluated lists {_names(_reported(got))}, but the run "
                           f"evaluated {_names(evaluations)}: it must list exactly the nodes the run computed, "
                           "in the order computed (no fed node)")
    return finding


def _same_run(reported: List[str], evaluations: List[str], graph: Structure) -> bool:
    """`last_run_evaluated` lists the nodes the run evaluated: in the order recorded, or (a run whose evaluations
    overlap, in threads) the same nodes as often, each after those of its inputs it lists."""
    if reported == evaluations:
        return True
    if Counter(reported) != Counter(evaluations):
        return False
    listed: Set[str] = set(reported)
    seen: Set[str] = set()
    for name in reported:
        if any(i in listed and i not in seen for i in graph.inputs(name)):
            return False
        seen.add(name)
    return True


def _reported(got: Dict[str, Any]) -> List[str]:
    """The student's `last_run_evaluated` as names (an error or another value: nothing)."""
    value = got.get("reported")
    return [str(n) for n in value] if isinstance(value, list) else []


def _figure_rows(got_cases: List[Any], want_cases: List[Dict[str, Any]], graph: Structure) -> List[Dict[str, Any]]:
    """Per run: nodes needed (fed ones included), nodes fed, evaluations by the reference and by the student."""
    rows = []
    for got, want in zip(got_cases, want_cases):
        regions = Regions.of(graph, want.get("fetch", []), want.get("fed", []))
        evaluations = got.get("evaluations") if isinstance(got, dict) else None
        raised = isinstance(got, dict) and _error(got.get("value")) is not None
        rows.append({
            "label": want.get("label", ""),
            "needed": len(regions.needed),
            "fed": len(set(want.get("fed", [])) & regions.needed),
            "reference": len(want.get("evaluations", [])),
            "student": len(evaluations) if isinstance(evaluations, list) else None,
            "raised": bool(raised),
            "reference_raised": _error(want.get("value")) is not None,
        })
    return rows


def lazy_run(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Several `sess.run` calls on one graph: values, and which nodes were evaluated (each needed node once).

    The fraction is the share of runs that are right. The misconception named is the
    most telling one any run shows (`PRIORITY`): evaluating nodes no fetch needs,
    recomputing behind a fed node, evaluating a shared node more than once, computing an unfed placeholder.
    """
    path = str(options.get("display_path", ""))
    want = reference.value
    graph = Structure(want["graph"])
    want_cases = want["cases"]
    got = student.value if isinstance(student.value, dict) else {}
    got_cases = got.get("cases") if isinstance(got.get("cases"), list) else []
    got_cases = list(got_cases[: len(want_cases)]) + [None] * max(0, len(want_cases) - len(got_cases))
    findings = [judge_case(g, w, graph, path) for g, w in zip(got_cases, want_cases)]
    figure = {"kind": "evaluations", "runs": _figure_rows(got_cases, want_cases, graph)}
    failed = [f for f in findings if f.problem]
    fraction = 1.0 - len(failed) / len(findings)
    if not failed:
        return Verdict(1.0, f"all {len(findings)} runs computed the right values, evaluating each needed node once "
                            "and nothing else", figure=figure)
    named = [m for m in PRIORITY if any(f.misconception == m for f in failed)]
    misconception = named[0] if named else None
    shown = next(f for f in failed if f.misconception == misconception) if misconception else failed[0]
    others = len(failed) - 1
    more = f" ({others} other run(s) wrong too)" if others else ""
    return Verdict(fraction, f"{len(failed)} of {len(findings)} runs wrong. {shown.problem}{more}",
                   misconception=misconception, figure=figure)


# ------------------------------------------------------------------ deep graphs


def deep_chain(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """A 5000-node chain, run and differentiated, at Python's default recursion limit.

    Recursion is judged on what the code did: a RecursionError (in the run or in
    gradients), or the graph used with more Python frames on the stack than the
    default limit allows, is `recursion-limit`.
    """
    path = str(options.get("display_path", ""))
    recursive = ("a recursive traversal (or a recursive evaluation) uses one Python stack frame per node of the "
                 "chain and Python stops near 1000: keep an explicit stack (a list of nodes to visit, with a "
                 "marker for 'inputs done') instead of the call stack")
    if not student.ok:
        if student.error_type == "RecursionError":
            return Verdict(0.0, f"{student.describe(path)}: {recursive}", misconception="recursion-limit")
        return Verdict(0.0, student.describe(path))
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value
    for part, what in (("run", "sess.run(y) on the 5000-node chain"), ("gradient", "gradients on the chain")):
        err = _error(got.get(part))
        if err is not None and err.get("type") == "RecursionError":
            return Verdict(0.0, f"{what} raised {error_text(got.get(part), path)}: {recursive}",
                           misconception="recursion-limit")
    if got.get("stack_beyond_limit") is True or got.get("recursion_limit_raised") is True:
        return Verdict(0.0, f"the chain was walked with more Python frames on the stack than the default recursion "
                            f"limit allows: {recursive}", misconception="recursion-limit")
    for part, what in (("run", "sess.run(y) on the 5000-node chain"), ("gradient", "the chain's gradient")):
        if _error(got.get(part)) is not None:
            return Verdict(0.0, f"{what} raised {error_text(got.get(part), path)}")
        try:
            problem = compare_values(got.get(part), want[part], GRADIENT_RTOL, GRADIENT_ATOL, what)
        except NotNumeric as exc:
            problem = f"{what}: {exc}"
        if problem:
            return Verdict(0.0, problem)
    if got.get("evaluated") != want["evaluated"]:
        made = f"sess.run(y) on the chain made {got.get('evaluated')} evaluations; it needs {want['evaluated']}"
        extra, most = got.get("not_needed"), got.get("most_repeated")
        if isinstance(extra, list) and extra:
            return Verdict(0.0, f"{made}: it evaluated {_names(set(map(str, extra)))}, which y does not depend on. "
                                f"{REREAD_LAZY}", misconception="evaluates-every-node")
        if isinstance(most, list) and len(most) == 2 and isinstance(most[1], int) and most[1] > 1:
            return Verdict(0.0, f"{made}: node '{most[0]}' (used by every step of the chain) was evaluated "
                                f"{most[1]} times; a node with several users is computed once per run",
                           misconception="reevaluates-shared-nodes")
        return Verdict(0.0, f"{made} (each node once)")
    return Verdict(1.0, "a 5000-node chain runs and differentiates at the default recursion limit")


deep_chain.handles_errors = True  # type: ignore[attr-defined]  # a RecursionError is its evidence


# ------------------------------------------------------------------ gradient values


def first_error(value: Any, path: str) -> Optional[str]:
    """The text of the first error record inside `value` (depth first), or None."""
    text = error_text(value, path)
    if text:
        return text
    if isinstance(value, dict):
        items: Iterable[Any] = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = first_error(item, path)
        if found:
            return found
    return None


GRADIENT_HINT = ("reverse mode: a node's adjoint is the sum of its users' contributions, each op's rule "
                 "(_OPS[op].grad) maps it to its inputs, and the nodes are visited in reverse topological order")


def gradient_values(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Values (gradients computed by running the nodes gradients() added, or fetched values) equal the reference's.

    When the reference value is a list (several programs), each item is worth an equal
    share of the points. Tolerances: `rtol` (1e-9) and `atol` (1e-12); `hint` is added
    to a wrong value's message (default: the reverse-mode reminder).
    """
    path = str(options.get("display_path", ""))
    rtol, atol = float(options.get("rtol", GRADIENT_RTOL)), float(options.get("atol", GRADIENT_ATOL))
    hint = str(options.get("hint", GRADIENT_HINT))
    want = reference.value
    items = want if isinstance(want, list) else [want]
    got = student.value if isinstance(want, list) else [student.value]
    got = got if isinstance(got, list) and len(got) == len(items) else [None] * len(items)
    problems = []  # (text, whether it is a wrong value rather than an error)
    for i, (g, w) in enumerate(zip(got, items)):
        where = f"program #{i + 1}: " if len(items) > 1 else ""
        err = first_error(g, path)
        if err:
            problems.append((f"{where}raised {err}", False))
            continue
        try:
            problem = compare_values(g, w, rtol, atol)
        except NotNumeric as exc:
            problem = str(exc)
        if problem:
            problems.append((f"{where}{problem}", True))
    if not problems:
        return Verdict(1.0, "gradient values match the reference")
    fraction = 1.0 - len(problems) / len(items)
    text, wrong_value = problems[0]
    more = f" ({len(problems) - 1} more wrong)" if len(problems) > 1 else ""
    return Verdict(fraction, text + more + (f"; {hint}" if wrong_value else ""))


def fresh_runs(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """Three runs of one session with different feeds each give the reference's values; a run that returns an
    earlier run's values (a session keeping computed values between runs) is named as such.

    The fraction is the share of runs that are right (tolerances as for evaluated values).
    """
    path = str(options.get("display_path", ""))
    want = reference.value["runs"]
    got = student.value.get("runs") if isinstance(student.value, dict) else None
    got = list(got) if isinstance(got, list) and len(got) == len(want) else [None] * len(want)
    problems, stale = [], None
    for i, (g, w) in enumerate(zip(got, want)):
        err = first_error(g, path)
        try:
            problem = f"raised {err}" if err else compare_values(g, w, VALUE_RTOL, VALUE_ATOL, "value")
        except NotNumeric as exc:
            problem = str(exc)
        if not problem:
            continue
        problems.append(f"run {i + 1}: {problem}")
        earlier = next((j for j in range(i) if _same_fetched(g, got[j])), None)
        if stale is None and earlier is not None:
            stale = (i, earlier)
    if not problems:
        return Verdict(1.0, f"all {len(want)} runs of one session computed their values from their own feeds")
    fraction = 1.0 - len(problems) / len(want)
    if stale:
        return Verdict(fraction, f"run {stale[0] + 1} of one session, x fed other values, returned what run "
                                 f"{stale[1] + 1} computed: a run computes its values afresh from its own feeds "
                                 "(`values` belongs to one run; between runs a session keeps only its variables and "
                                 "folded constants)", misconception="values-kept-across-runs")
    more = f" ({len(problems) - 1} more wrong)" if len(problems) > 1 else ""
    return Verdict(fraction, problems[0] + more)


def _same_fetched(later: Any, earlier: Any) -> bool:
    """Whether a run's value of h (fetched alone, or first of a list of fetches) is an earlier run's value of h."""
    return _close(_first_fetch(later), _first_fetch(earlier))


def _first_fetch(value: Any) -> Any:
    """h's value in a run's result: the result itself (h, a matrix) or its first item (a list of matrices)."""
    nested = isinstance(value, list) and value and isinstance(value[0], list) and value[0] \
        and isinstance(value[0][0], list)
    return value[0] if nested else value


def _close(a: Any, b: Any) -> bool:
    try:
        x, y = to_array(a), to_array(b)
    except NotNumeric:
        return False
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=GRADIENT_RTOL, atol=GRADIENT_ATOL))


def single_contribution(dx: Any, contributions: Sequence[Any]) -> Optional[int]:
    """The index of the one user whose contribution alone equals `dx`, if `dx` is not their sum; else None."""
    try:
        total = np.sum([to_array(c) for c in contributions], axis=0)
    except (NotNumeric, ValueError):
        return None
    if _close(dx, total.tolist()):
        return None
    for i, c in enumerate(contributions):
        if _close(dx, c):
            return i
    return None


def fan_out(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """x has several users: x̄ is the sum of their contributions.

    `gradients-not-summed` when, on every graph the student gets wrong, x̄ equals
    exactly one user's contribution (and not the sum): the adjoint kept one
    contribution (the first or the last) instead of adding them up. A node whose
    fan-out is one step from x (x → h, h used twice) shows it as well.
    """
    path = str(options.get("display_path", ""))
    want = reference.value
    got = student.value if isinstance(student.value, list) and len(student.value) == len(want) else [None] * len(want)
    problems, singles, wrong = [], [], []
    for i, (g, w) in enumerate(zip(got, want)):
        dx = g.get("dx") if isinstance(g, dict) else None
        err = first_error(dx, path)
        if err:
            problems.append(f"graph #{i + 1}: raised {err}")
            singles.append(None)
            wrong.append(i)
            continue
        try:
            problem = compare_values(dx, w["dx"], GRADIENT_RTOL, GRADIENT_ATOL, f"graph #{i + 1}: x̄")
        except NotNumeric as exc:
            problem = f"graph #{i + 1}: {exc}"
        if problem:
            problems.append(problem)
            wrong.append(i)
        singles.append(single_contribution(dx, w["contributions"]) if problem else None)
    if not problems:
        return Verdict(1.0, "x̄ is the sum of the contributions of all of x's users on every graph")
    fraction = 1.0 - len(problems) / len(want)
    repeats = any(isinstance(g, dict) and g.get("order_repeats") is True for g in got)
    if wrong and all(singles[i] is not None for i in wrong) and not repeats:  # a repeating order: its own test
        i = wrong[0]
        w, g = want[i], got[i]
        where = ("on the lecture's f = x1 + exp(1.5 x1 + 2 x2) at (3, 0.5), x1's users contribute" if i == 0 else
                 f"on graph #{i + 1}, the contributions through x's users are")
        return Verdict(
            fraction,
            f"x̄ equals ONE user's contribution instead of their sum ({len(wrong)} of {len(want)} graphs): {where} "
            f"{_short(w['contributions'])}, so x̄ = {_short(w['dx'])}; yours is {_short(g.get('dx'))}. Collect every "
            "contribution to a node and add them (an AddN or a chain of adds) before passing its adjoint on",
            misconception="gradients-not-summed")
    hint = "" if " raised " in problems[0] else f"; {GRADIENT_HINT}"
    return Verdict(fraction, f"{problems[0]}" + (f" ({len(problems) - 1} more wrong)" if len(problems) > 1 else "")
                   + hint)


def _short(value: Any) -> str:
    try:
        arr = to_array(value)
    except NotNumeric:
        return describe_value(value, 60)
    if arr.ndim == 0:
        return f"{float(arr):.6g}"
    return "[" + ", ".join(f"{x:.6g}" for x in arr.ravel()[:6]) + (", ...]" if arr.size > 6 else "]")


# ------------------------------------------------------------------ gradients is a graph transformation


def symbolic(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """gradients() only adds nodes: it evaluates none, adds some, returns one Node per x with x's static shape,
    and running those nodes gives the reference's values."""
    path = str(options.get("display_path", ""))
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value
    if first_error(got.get("error"), path):
        return Verdict(0.0, f"gradients raised {first_error(got.get('error'), path)}")
    built = got.get("evaluated_while_building")
    if not isinstance(built, list):
        return Verdict(0.0, "the probe's record could not be read")
    if built:
        return Verdict(0.0, f"gradients() evaluated {len(built)} node(s) ({_names(set(map(str, built)))}) while "
                            "building: it must only ADD nodes to the graph (a graph transformation); the numbers come "
                            "later, from sess.run on the nodes it returns")
    if not isinstance(got.get("added"), int) or got["added"] <= 0:
        return Verdict(0.0, "gradients() added no node to the graph: it must build the gradient computation as nodes")
    if got.get("are_nodes") != want["are_nodes"]:
        return Verdict(0.0, f"gradients() must return one graph Node per x (got Node? {got.get('are_nodes')})")
    if got.get("shapes") != want["shapes"]:
        return Verdict(0.0, f"static shapes of the gradient nodes: {got.get('shapes')}, expected {want['shapes']} "
                            "(each x̄ has the static shape of x)")
    err = first_error(got.get("values"), path)
    if err:
        return Verdict(0.0, f"running the gradient nodes raised {err}")
    try:
        problem = compare_values(got.get("values"), want["values"], GRADIENT_RTOL, GRADIENT_ATOL, "gradient values")
    except NotNumeric as exc:
        problem = str(exc)
    if problem:
        return Verdict(0.0, f"{problem}; {GRADIENT_HINT}")
    seeded = _non_scalar_finding(got.get("non_scalar"), want["non_scalar"], path)
    if seeded:
        return Verdict(0.5, seeded, misconception="seed-not-ones-like-y")
    return Verdict(1.0, f"gradients() added {got['added']} nodes, evaluated none, and they give the right values, "
                        "for a scalar y and for a non-scalar one")


SEED_HINT = ("with no grad_ys, each y is seeded with OnesLike(y), a node of y's shape (TF1's ones_like): a scalar "
             "1.0 broadcasts through elementwise rules, but gives the gradients the wrong static shape and breaks "
             "matmul's rule")


def _non_scalar_finding(got: Any, want: Dict[str, Any], path: str) -> Optional[str]:
    """What is wrong with gradients(x·W, [x, W]) for the non-scalar x·W of shape (?, 4), if anything."""
    where = "gradients(x·W, [x, W]) of the non-scalar x·W, shape (?, 4), no grad_ys"
    got = got if isinstance(got, dict) else {}
    err = first_error(got.get("error"), path) or first_error(got.get("values"), path)
    if err:
        return f"{where}: raised {err}; {SEED_HINT}"
    if got.get("shapes") != want["shapes"]:
        return f"{where}: static shapes {got.get('shapes')}, expected {want['shapes']}; {SEED_HINT}"
    try:
        problem = compare_values(got.get("values"), want["values"], GRADIENT_RTOL, GRADIENT_ATOL, "gradient values")
    except NotNumeric as exc:
        problem = str(exc)
    return f"{where}: {problem}; {SEED_HINT}" if problem else None


def unrelated(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """The gradient with respect to a node the ys do not depend on is None (TF1); y's gradient w.r.t. itself is ones."""
    path = str(options.get("display_path", ""))
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value
    err = first_error(got.get("error"), path)
    if err:
        return Verdict(0.0, f"gradients(y, [x, u, c, later, y]) raised {err}; u and 'later' are nodes y does not "
                            "depend on: their gradient is None (TF1), not an error")
    labels = ["x", "u (a placeholder y does not use)", "c (a constant y uses: it gets a gradient too)",
              "later (depends on x, but y does not depend on it)", "y itself (ones)"]
    is_none = got.get("is_none")
    if is_none != want["is_none"]:
        wrong = [lab for lab, g, w in zip(labels, is_none if isinstance(is_none, list) else [None] * 5,
                                          want["is_none"]) if g != w]
        return Verdict(0.0, f"None / not None is wrong for {', '.join(wrong) or 'the result'}: the gradient with "
                            "respect to a node that y does not depend on is None, like TF1 (not zeros, not an "
                            "error); every other x gets a Node")
    err = first_error(got.get("values"), path)
    if err:
        return Verdict(0.0, f"running the gradient nodes raised {err}")
    problem = compare_values(got.get("values"), want["values"], GRADIENT_RTOL, GRADIENT_ATOL, "gradient values")
    if problem:
        return Verdict(0.0, f"{problem}; {GRADIENT_HINT}")
    return Verdict(1.0, "None exactly for the nodes y does not depend on, right values for the others")


# ------------------------------------------------------------------ each part on its own


def _order_finding(case: Dict[str, Any], want: Dict[str, Any], path: str) -> Optional[tuple]:
    """(problem, whether the order shows `not-topological`) for one call of `_topological_order`, None if right.

    Only the order among the nodes listed is judged here (which nodes a run needs is lazy_run's): every listed node
    that is expanded comes after each of its listed inputs (first occurrences: a node listed twice is
    `reevaluates-shared-nodes`' evidence, judged elsewhere). An order that lists every node before its inputs is
    the contract reversed (users first), not named; one that mixes the two is not topological.
    """
    label = str(want.get("label", "the graph"))
    order = case.get("order") if isinstance(case, dict) else None
    err = error_text(order, path)
    if err:
        return f"on {label}: _topological_order raised {err}", False
    if not isinstance(order, list) or not all(isinstance(n, str) for n in order):
        return f"on {label}: _topological_order returned {describe_value(order)}, expected a list of nodes", False
    graph = Structure(want["graph"])
    stop = set(want.get("stop", []))
    first: Dict[str, int] = {}
    for i, n in enumerate(order):
        first.setdefault(n, i)
    missing = set(want.get("order", [])) - set(first)
    late, early = [], []  # (user, input) listed user first / input first
    for n in first:
        if n in stop:
            continue
        for i in graph.inputs(n):
            if i in first:
                (late if first[i] > first[n] else early).append((n, i))
    if late and early:
        user, inp = late[0]
        return (f"on {label}: your order {_listing(order)} lists '{user}' before its input '{inp}' "
                f"({len(late)} of {len(late) + len(early)} edges the wrong way, the others the right way): "
                "a breadth-first or first-touch order is not topological when a node is reached by paths of "
                "different lengths. Post-order depth-first search (explicit stack): a node after all of its "
                "inputs"), True
    if late:
        return (f"on {label}: your order {_listing(order)} lists every node before its inputs: the contract of "
                "_topological_order is inputs first (Session.run evaluates it front to back; gradients walks "
                "it backwards)"), False
    if missing:
        return f"on {label}: the order lacks {_names(missing)}, which the roots need", False
    return None


def _listing(order: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(order[:limit])
    return f"[{shown}{', ...' if len(order) > limit else ''}]"


def topological(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """`_topological_order` alone on graphs with paths of different lengths: each node after all of its inputs.
    `not-topological` when its order puts some node before one of its inputs and others after."""
    path = str(options.get("display_path", ""))
    want = reference.value
    got = student.value if isinstance(student.value, list) and len(student.value) == len(want) else [None] * len(want)
    findings = [f for f in (_order_finding(g, w, path) for g, w in zip(got, want)) if f is not None]
    if not findings:
        return Verdict(1.0, f"_topological_order lists every node after its inputs on all {len(want)} graphs")
    named = [text for text, shows in findings if shows]
    text = named[0] if named else findings[0][0]
    more = f" ({len(findings) - 1} more graph(s) wrong)" if len(findings) > 1 else ""
    return Verdict(1.0 - len(findings) / len(want), text + more,
                   misconception="not-topological" if named else None)


def _grad_problem(got: Any, want: Any, path: str) -> Optional[str]:
    err = first_error(got, path)
    if err:
        return f"raised {err}"
    try:
        return compare_values(got, want, GRADIENT_RTOL, GRADIENT_ATOL, "the gradients")
    except NotNumeric as exc:
        return str(exc)


def _walked_forwards(row: Dict[str, Any]) -> Optional[bool]:
    """Whether the gradient rules were applied in the direction of the order handed out (inputs first): True when
    at least two were and each came after the ones listed before it; False when some came the other way; None
    when the record cannot tell (no order asked for, fewer than two rules applied)."""
    orders, rules = row.get("orders"), row.get("rules")
    if not isinstance(orders, list) or not orders or not isinstance(orders[0], list) or not isinstance(rules, list):
        return None
    index = {str(n): i for i, n in enumerate(orders[0])}
    seq = [index[str(r)] for r in rules if str(r) in index]
    if len(seq) < 2:
        return None
    return all(a < b for a, b in zip(seq, seq[1:]))


def gradients_order(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """gradients() on its own: handed the probe's own (right) topological order, inputs first, its values are the
    reference's. `order-not-reversed` when they are wrong and the gradient rules were applied in the order's own
    direction (on a graph where two or more were, every one after those listed before it; on no graph the
    other way): the gradient pass walks the order forwards, from the inputs to the ys."""
    path = str(options.get("display_path", ""))
    want = reference.value
    got = student.value if isinstance(student.value, list) and len(student.value) == len(want) else [None] * len(want)
    rows = [g if isinstance(g, dict) else {} for g in got]
    problems = []
    for g, w in zip(rows, want):
        problem = _grad_problem(g.get("values"), w["values"], path)
        if problem is not None:
            problems.append(f"on {w['label']}: {problem}")
    if not problems:
        return Verdict(1.0, f"gradients gives the right values on {len(want)} graphs when handed a topological order")
    fraction = 1.0 - len(problems) / len(want)
    more = f" ({len(problems) - 1} more)" if len(problems) > 1 else ""
    directions = [_walked_forwards(g) for g in rows]
    if any(d is True for d in directions) and not any(d is False for d in directions):
        shown = next(g for g, d in zip(rows, directions) if d)
        return Verdict(fraction, f"handed a topological order (inputs first, as _topological_order returns it), "
                                 f"{problems[0]}{more}. Your gradients applied the gradient rules of "
                                 f"{_listing([str(r) for r in shown['rules']])} in the order's own direction, "
                                 "inputs first: it walks the order forwards, so a y's adjoint reaches nodes the pass "
                                 "has already left behind. Reverse mode starts at the ys: walk reversed(order)",
                       misconception="order-not-reversed")
    return Verdict(fraction, f"handed a topological order (inputs first, from the grader: your _topological_order "
                             f"plays no part here), {problems[0]}{more}; {GRADIENT_HINT}")


def gradients_work(student: ProbeOutcome, reference: ProbeOutcome, options: Dict[str, Any]) -> Verdict:
    """gradients(y, [x]) on diamond chains (2^k paths through k layers): gradient-rule calls and uses of the
    nodes' inputs stay within a constant factor of the reference's (once per node). `path-recursion` when the
    rule calls double with every layer: the adjoints were pushed along every path."""
    path = str(options.get("display_path", ""))
    factor = float(options.get("factor", 4.0))
    want = [r for r in reference.value if isinstance(r, dict)]
    got = student.value if isinstance(student.value, list) and len(student.value) == len(want) else []
    if not got or not all(isinstance(r, dict) for r in got):
        return Verdict(0.0, "the probe's record could not be read")
    figure = {"kind": "gradient_work", "layers": [w["layers"] for w in want],
              "reference": [w.get("rule_calls") for w in want], "student": [g.get("rule_calls") for g in got]}
    for g in got:
        err = first_error(g.get("error"), path)
        if err:
            return Verdict(0.0, f"gradients on {g.get('layers')} diamond layers raised {err}", figure=figure)
    calls = [g.get("rule_calls") if isinstance(g.get("rule_calls"), int) else 0 for g in got]
    ref_calls = [int(w["rule_calls"]) for w in want]
    uses = [g.get("uses") if isinstance(g.get("uses"), int) else 0 for g in got]
    ref_uses = [int(w["uses"]) for w in want]
    listing = ", ".join(f"{w['layers']}→{c}{'+' if g.get('exceeded') else ''}" for w, g, c in zip(want, got, calls))
    too_many = [i for i, (c, r) in enumerate(zip(calls, ref_calls)) if c > factor * r + 8]
    exceeded = [i for i, g in enumerate(got) if g.get("exceeded")]
    if not too_many and not exceeded:
        heavy = [i for i, (u, r) in enumerate(zip(uses, ref_uses)) if u > factor * r + 50]
        wrong = [(g, w) for g, w in zip(got, want) if "gradient" in w and _grad_problem(g.get("gradient"),
                                                                                         w["gradient"], path)]
        if not heavy and wrong:  # work counts only for a gradients that gives the right derivatives
            g, w = wrong[0]
            return Verdict(0.0, f"on {w['layers']} diamond layers the gradient is wrong "
                                f"({_grad_problem(g.get('gradient'), w['gradient'], path)}): the work of a "
                                "gradients that does not give the right derivatives earns nothing (see the value "
                                "tests)", figure=figure)
        if not heavy:
            return Verdict(1.0, f"gradients calls each gradient rule about once per node (layers→rule calls: "
                                f"{listing}; the reference: {', '.join(map(str, ref_calls))})", figure=figure)
        i = heavy[0]
        return Verdict(0.0, f"on {want[i]['layers']} diamond layers gradients used the nodes' inputs {uses[i]} "
                            f"times, the reference {ref_uses[i]}: visit each node a constant number of times "
                            "(a set or dict keyed by node)", figure=figure)
    # the paths double per layer (2 layers more: 4 times the paths): calls growing that fast are per path
    growth = [calls[i + 1] / max(1, calls[i]) for i in range(len(calls) - 1)]
    doubling = len(growth) >= 2 and all(r >= 2.5 for r in growth[-2:] if r) and calls[-1] >= 8 * ref_calls[-1]
    last = too_many[0] if too_many else exceeded[0]
    text = (f"gradients called the ops' gradient rules {calls[last]}{'+ (stopped)' if last in exceeded else ''} "
            f"times on {want[last]['layers']} diamond layers ({want[last]['nodes']} nodes, {want[last]['paths']} "
            f"paths from x to y), the reference {ref_calls[last]} (layers→rule calls: {listing})")
    if doubling or (exceeded and len(exceeded) < len(got)):
        return Verdict(0.0, f"{text}: the work doubles with every diamond layer, as the number of paths does, so "
                            "the adjoints were pushed along every path. Reverse mode handles each node once: sum a "
                            "node's contributions first, then apply its rule once, in reverse topological order",
                       misconception="path-recursion", figure=figure)
    return Verdict(0.0, f"{text}: call each node's gradient rule once", figure=figure)


def _no_resemblance(value: Any) -> None:
    """What instructor-mutant matching may compare in this problem's outcomes: nothing.

    Two different mistakes often give the same wrong numbers here (a topological order
    with duplicates and an overwritten adjoint both leave one contribution in x̄), so a
    misconception is named only by the judges' own rules, on the submission's data.
    """
    return None


JUDGES = {
    "topological": topological,
    "gradients_order": gradients_order,
    "gradients_work": gradients_work,
    "lazy_run": lazy_run,
    "deep_chain": deep_chain,
    "gradient_values": gradient_values,
    "fan_out": fan_out,
    "symbolic": symbolic,
    "unrelated": unrelated,
    "fresh_runs": fresh_runs,
}

for _judge in JUDGES.values():
    _judge.view = _no_resemblance  # type: ignore[attr-defined]
