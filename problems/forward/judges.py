r"""Parent-side judges for `forward`: dual-number rules, jvp and gradient, judged as properties.

The values are compared with the reference's run of the same probe. A misconception is
named only on evidence in this submission's own data:

* `product-rule-no-cross-term`: x·y along x (x = a + 1ε, y = c + 0ε) or along y has tangent 0,
  with the right primal, though the other factor is not 0 (∂(xy)/∂x = y): a term of ad + bc is missing;
* `unary-chain-rule-no-inner-tangent`: the tangent of exp/log/sigmoid/relu is not linear in
  the incoming tangent b (doubling b does not double it, or b = 0 still gives a tangent),
  with the right primal: the rule g'(a)·b must multiply by b;
* `sigmoid-derivative-of-input` (the shared catalogue's): sigmoid's tangent is a(1 - a)·b with a the input,
  not σ(a)(1 - σ(a))·b, with the right primal, on every point where it is wrong (two at least);
* `one-pass-gradient`: `gradient` of n ≥ 2 inputs evaluates f once, or evaluates it fewer than n
  times and returns the same number n times that equals ∇f·(1, ..., 1) (one pass along the all-ones
  tangent).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from graders.api import Verdict, describe_value, error_text

DISPLAY = "minitorch/forward.py"
#: tolerances for a primitive's value: one or two roundings away from the reference
RTOL, ATOL = 1e-9, 1e-12
#: a central difference with step 1e-6 agrees with an exact tangent to about this
FD_RTOL, FD_ATOL = 1e-4, 1e-6

TAYLOR = "every rule is the first-order Taylor expansion g(a + bε) = g(a) + g'(a)·b ε"

#: what a failure far from 0 says, by the sign of a: {primitive: (note for a < 0, note for a >= 0)}
EXTREME_NOTES = {
    "sigmoid": (
        "σ(a) is 0 to double precision there, and its tangent 0, but 1 / (1 + exp(-a)), or a tangent written as "
        "exp(-a) / (1 + exp(-a))², asks for exp(800), which overflows: for a < 0 compute σ(a) as exp(a) / (1 + exp(a)) "
        "(operators.sigmoid does), and the tangent as σ(a)(1 - σ(a))·b from that value.",
        "σ(a) is 1 to double precision there, and its tangent 0, but exp(a) / (1 + exp(a)), or a tangent written with "
        "exp(a), asks for exp(800), which overflows (or gives inf / inf = nan): for a >= 0 compute σ(a) as "
        "1 / (1 + exp(-a)) (operators.sigmoid does), and the tangent as σ(a)(1 - σ(a))·b from that value.",
    ),
}
#: far from 0 the values are 0 or 1 and the tangents 0: compared to this absolute tolerance (a sigmoid that stops at
#: |a| = 20 is 2e-9 off and right for every use)
EXTREME_ATOL = 1e-6

#: what a rule's probe checks exactly at a kink (cases marked "kink" by the probe) must be told
KINK_NOTES = {
    "relu": ("relu has no derivative at its kink a = 0; the convention is the tangent 0 there, as the reverse-mode "
             "relu's derivative (operators.relu_back(x, d) = d if x > 0 else 0): the tangent is [a > 0]·b, "
             "so at a = 0 (also -0.0) it is 0, whatever b is; a test a >= 0 gives b instead."),
}


# ----------------------------------------------------------------- reading values


def _number(v: Any) -> Optional[float]:
    """A plain finite-or-not float from probe data, None if `v` is not a number."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, dict) and set(v) == {"__float__"}:
        try:
            return float(str(v["__float__"]))
        except ValueError:
            return None
    return None


def _pair(v: Any) -> Optional[Tuple[float, float]]:
    """(primal, tangent) from probe data, None if it is not two numbers."""
    if isinstance(v, list) and len(v) == 2:
        a, b = _number(v[0]), _number(v[1])
        if a is not None and b is not None:
            return a, b
    return None


def _close(x: float, y: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    return math.isclose(x, y, rel_tol=rtol, abs_tol=atol) or (math.isnan(x) and math.isnan(y))


def _dual(p: Tuple[float, float]) -> str:
    sign = "-" if p[1] < 0 else "+"
    return f"{p[0]:.10g} {sign} {abs(p[1]):.10g}ε"


def _mismatch(got: Any, want: Any, rtol: float = RTOL, atol: float = ATOL, show=_dual) -> Optional[str]:
    """Why `got` (a [primal, tangent] pair or an error record) is not `want`, or None."""
    err = error_text(got, DISPLAY)
    if err:
        return f"raised {err}"
    mine, ref = _pair(got), _pair(want)
    if ref is None:
        return None  # the reference has no value here: nothing to compare
    if mine is None:
        return f"gave {describe_value(got)}, expected {show(ref)}"
    wrong = [part for part, m, r in zip(("value", "tangent"), mine, ref) if not _close(m, r, rtol, atol)]
    if not wrong:
        return None
    verb = "is" if len(wrong) == 1 else "are"
    return f"gave {show(mine)}, expected {show(ref)} (the {' and the '.join(wrong)} {verb} wrong)"


def _cases(outcome) -> List[Dict[str, Any]]:
    value = outcome.value
    return [c if isinstance(c, dict) else {} for c in value] if isinstance(value, list) else []


def _results(case: Dict[str, Any]) -> Dict[str, Any]:
    results = case.get("results")
    return results if isinstance(results, dict) else {}


# ----------------------------------------------------------------- second opinion


def _slope_note(mine: Dict[str, Any], ref: Dict[str, Any], label: str) -> str:
    """Central differences of the student's own primal against the student's tangent."""
    slopes = mine.get("slopes") if isinstance(mine.get("slopes"), dict) else {}
    estimate = _number(slopes.get(label))
    got, want = _pair(_results(mine).get(label)), _pair(_results(ref).get(label))
    if estimate is None or got is None or want is None or not math.isfinite(estimate):
        return ""
    if not _close(got[0], want[0]):
        if _close(got[1], estimate, FD_RTOL, FD_ATOL):
            return (" Your tangent agrees with central differences of your own primal, so the primal (the value) "
                    "is what is wrong.")
        return ""
    if not _close(got[1], estimate, FD_RTOL, FD_ATOL):
        return (f" Central differences of your own primal give a tangent of about {estimate:.6g}, not your "
                f"{got[1]:.6g}: the tangent rule is what is wrong.")
    return ""


def _kink_note(mine: Dict[str, Any], ref: Dict[str, Any], label: str, note: Optional[str]) -> str:
    """At a kink case (no central difference there): the convention `note`, when the primal is right."""
    got, want = _pair(_results(mine).get(label)), _pair(_results(ref).get(label))
    if not note or got is None or want is None or not _close(got[0], want[0]):
        return ""
    return f" {note}"


def _first_failure(student, reference, kink_note: Optional[str] = None,
                   extreme_notes: Optional[Tuple[str, str]] = None) -> Optional[Tuple[str, int, int]]:
    """(message, failures, checks) of the first failing check of a rule probe, None when all pass; a failure at
    a kink case says `kink_note` instead of the central-difference second opinion, one far from 0 (compared to
    EXTREME_ATOL) the note of `extreme_notes` for the sign of its a."""
    got, want = _cases(student), _cases(reference)
    if len(got) != len(want):
        return "the probe returned the wrong number of cases", 1, 1
    first, failures, checks = None, 0, 0
    for mine, ref in zip(got, want):
        for label, expected in _results(ref).items():
            checks += 1
            problem = _mismatch(_results(mine).get(label), expected,
                                atol=EXTREME_ATOL if ref.get("extreme") else ATOL)
            if problem:
                failures += 1
                if first is None:
                    if ref.get("extreme"):
                        a = _number(ref.get("a"))
                        note = f" {extreme_notes[a is not None and a >= 0]}" if extreme_notes else ""
                    elif ref.get("kink"):
                        note = _kink_note(mine, ref, label, kink_note)
                    else:
                        note = _slope_note(mine, ref, label)
                    first = f"with {ref.get('inputs')}: {label} {problem}.{note}"
    return None if first is None else (first, failures, checks)


def _rule_verdict(student, reference, what: str, reread: str, misconception: Optional[Tuple[str, str]] = None,
                  kink_note: Optional[str] = None, extreme_notes: Optional[Tuple[str, str]] = None) -> Verdict:
    """All-or-nothing on the rule probe's checks; `misconception` = (id, evidence) adds a diagnosis."""
    failure = _first_failure(student, reference, kink_note, extreme_notes)
    if failure is None:
        return Verdict(1.0, f"{what}: every value and tangent matches the reference "
                            f"({sum(len(_results(c)) for c in _cases(reference))} checks)")
    message, failures, checks = failure
    text = f"{what}: {failures} of {checks} checks fail; first: {message} Reread: {reread}."
    if misconception:
        return Verdict(0.0, f"{text} {misconception[1]}", misconception=misconception[0])
    return Verdict(0.0, text)


# ----------------------------------------------------------------- rules of the primitives


def _missing_cross_term(student) -> Optional[str]:
    """Evidence of a product rule without one of its terms: a tangent of 0 along an input whose
    partial derivative (the other factor) is not 0, with the right primal."""
    for case in _cases(student):
        a, c = _number(case.get("a")), _number(case.get("c"))
        if a is None or c is None:
            continue
        results = _results(case)
        for label, other, name, term in (("x * y along x (b = 1, d = 0)", c, "y", "b·c"),
                                         ("x * y along y (b = 0, d = 1)", a, "x", "a·d")):
            got = _pair(results.get(label))
            if got is None or not _close(got[0], a * c) or abs(other) < 1e-3:
                continue
            if abs(got[1]) <= 1e-12:
                return (f"Evidence: for x = {a:.6g} + bε, y = {c:.6g} + dε, {label} gave the tangent 0, but "
                        f"∂(xy)/∂{'x' if name == 'y' else 'y'} = {name} = {other:.6g}: the term {term} of "
                        "(a + bε)(c + dε) = ac + (ad + bc)ε is missing (only the bd ε² term vanishes).")
    return None


def product_rule(student, reference, options) -> Verdict:
    """Dual.__mul__: values and tangents on random duals, along each input, x*x, constants on either side."""
    evidence = _missing_cross_term(student)
    return _rule_verdict(
        student, reference, "Dual.__mul__",
        "the product rule of dual numbers: (a + bε)(c + dε) = ac + (ad + bc)ε because ε² = 0",
        ("product-rule-no-cross-term", evidence) if evidence else None,
    )


def primitive(student, reference, options) -> Verdict:
    """A rule probe compared check by check with the reference (the option `what` names the rule)."""
    what = str(options.get("what") or "the rule")
    return _rule_verdict(student, reference, what, f"the lecture's dual-number rules: {TAYLOR}")


def _not_linear(student, what: str) -> Optional[Tuple[str, Dict[str, Any]]]:
    """Evidence that the tangent of g(a + bε) is not g'(a)·b: (message, figure data), or None."""
    for case in _cases(student):
        a, b = _number(case.get("a")), _number(case.get("b"))
        results = _results(case)
        once = _pair(results.get(f"x.{what}()"))
        twice = _pair(results.get(f"x.{what}() with the tangent doubled (a + 2bε)"))
        zero = _pair(results.get(f"x.{what}() of a constant (a + 0ε)"))
        if a is None or b is None or once is None or twice is None or zero is None:
            continue
        if not all(math.isfinite(v) for v in (*once, *twice, *zero)):
            continue  # inf or nan: no evidence about the rule (a NaN is never "linear")
        if not (_close(once[0], twice[0]) and _close(once[0], zero[0])):
            continue  # the primal itself moves with the tangent: some other mistake
        doubled = _close(twice[1], 2 * once[1], 1e-7, 1e-10)
        constant = abs(zero[1]) <= 1e-10
        if doubled and constant:
            continue
        parts = []
        if not doubled:
            parts.append(f"doubling the incoming tangent ({_dual((a, 2 * b))}) gave {twice[1]:.6g} "
                         f"instead of 2 × {once[1]:.6g} = {2 * once[1]:.6g}")
        if not constant:
            parts.append(f"a constant (a + 0ε) got the tangent {zero[1]:.6g} instead of 0")
        message = (f"Evidence: at a = {a:.6g}, b = {b:.6g}, {' and '.join(parts)}. The tangent must be "
                   f"g'(a)·b: the local derivative times the incoming tangent b, so it is linear in b "
                   f"(chain rule: d/dt g(x(t)) = g'(x)·x').")
        figure = {"kind": "tangent_line", "what": what, "a": a,
                  "b": [0.0, b, 2 * b], "student": [zero[1], once[1], twice[1]]}
        return message, figure
    return None


def _sigmoid(a: float) -> float:
    return 1.0 / (1.0 + math.exp(-a)) if a >= 0 else math.exp(a) / (1.0 + math.exp(a))


def _sigmoid_of_input(student) -> Optional[str]:
    """Evidence that sigmoid's local derivative was taken of the input a, a(1 - a), instead of the output
    σ(a)(1 - σ(a)): with the right primal σ(a), every wrong tangent is a(1 - a)·b (or a(1 - a), without b),
    on at least two points where that differs from σ(a)(1 - σ(a))·b."""
    matches, wrong = [], 0
    for case in _cases(student):
        a, b = _number(case.get("a")), _number(case.get("b"))
        got = _pair(_results(case).get("x.sigmoid()"))
        if a is None or b is None or got is None or not all(math.isfinite(v) for v in got):
            continue
        s = _sigmoid(a)
        if not _close(got[0], s, 1e-9, 1e-12):
            return None  # the value itself is wrong: another mistake
        true = s * (1.0 - s) * b
        if _close(got[1], true, 1e-7, 1e-10):
            continue
        wrong += 1
        local = a * (1.0 - a)
        of_input = _close(got[1], local * b, 1e-7, 1e-10) or _close(got[1], local, 1e-7, 1e-10)
        if abs(local * b - true) > 1e-6 and of_input:
            matches.append((a, b, got[1], true))
    if len(matches) < 2 or len(matches) != wrong:
        return None
    a, b, tangent, true = matches[0]
    times_b = "" if _close(tangent, a * (1 - a), 1e-7, 1e-10) else "·b"
    return (f"Evidence: at a = {a:.6g}, b = {b:.6g} your tangent {tangent:.6g} is a(1 - a){times_b} "
            f"with a the INPUT (on {len(matches)} points); the derivative of σ is σ(a)(1 - σ(a)), a function of the "
            f"output: σ(a)(1 - σ(a))·b = {true:.6g}.")


def unary_rule(student, reference, options) -> Verdict:
    """exp/log/sigmoid/relu (option `what`): values and tangents; the tangent must be linear in b; sigmoid's
    local derivative must be of its output (both misconceptions are named when the data shows both)."""
    what = str(options.get("what") or "exp")
    verdict = _rule_verdict(student, reference, f"Dual.{what}",
                            f"the lecture's dual-number rules: {TAYLOR}", kink_note=KINK_NOTES.get(what),
                            extreme_notes=EXTREME_NOTES.get(what))
    if verdict.passed:
        return verdict
    of_input = _sigmoid_of_input(student) if what == "sigmoid" else None
    found = _not_linear(student, what)
    if found is None:
        if of_input is None:
            return verdict
        return Verdict(0.0, f"{verdict.message} {of_input}", misconception="sigmoid-derivative-of-input")
    message, figure = found
    figure["reference"] = _reference_line(reference, what, figure["a"], figure["b"][1])
    also = ("sigmoid-derivative-of-input",) if of_input else ()
    return Verdict(0.0, f"{verdict.message} {message}{' ' + of_input if of_input else ''}",
                   misconception="unary-chain-rule-no-inner-tangent", figure=figure, also=also)


def _reference_line(reference, what: str, a: float, b: float) -> List[Optional[float]]:
    """The reference's tangents at b = 0, b, 2b for the case at (`a`, `b`) (for the figure; relu's kink is
    probed at 0.0 and -0.0, equal as floats, with different b)."""
    for case in _cases(reference):
        if _number(case.get("a")) == a and _number(case.get("b")) == b:
            once = _pair(_results(case).get(f"x.{what}()"))
            if once is not None:
                return [0.0, once[1], 2 * once[1]]
    return [None, None, None]


# ----------------------------------------------------------------- jvp


def _labelled(student, reference, rtol: float, atol: float, show=_dual) -> Tuple[List[str], int]:
    """Failures of a {label: [value, tangent]} probe (messages), and the number of checks."""
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value if isinstance(reference.value, dict) else {}
    problems = []
    for label, expected in want.items():
        if _pair(expected) is None:
            continue
        problem = _mismatch(got.get(label), expected, rtol, atol, show)
        if problem:
            problems.append(f"{label} {problem}")
    return problems, sum(_pair(v) is not None for v in want.values())


def _value_tangent(p: Tuple[float, float]) -> str:
    return f"(f(x), ∇f·t) = ({p[0]:.10g}, {p[1]:.10g})"


def slides(student, reference, options) -> Verdict:
    """The slides' example: two jvp passes give ∂f/∂x1 = 368.0379 and ∂f/∂x2 = 489.3839."""
    problems, _checks = _labelled(student, reference, 1e-9, 1e-9, _value_tangent)
    if not problems:
        return Verdict(1.0, "both passes match the slides: ∂f/∂x1 = 368.0378983963, ∂f/∂x2 = 489.3838645284")
    return Verdict(0.0, f"f = x1 + exp(1.5 x1 + 2 x2) at (3, 0.5): {problems[0]}. One jvp pass with t = e_i "
                        "gives ∂f/∂x_i. Reread: forward mode on the slides' example (each node carries "
                        "(value, tangent); the tangent of exp is e^u·u').")


def programs(student, reference, options) -> Verdict:
    """jvp of random programs over every operation, and of the sigmoid quiz graph."""
    problems, checks = _labelled(student, reference, 1e-8, 1e-9, _value_tangent)
    if not problems:
        return Verdict(1.0, f"jvp matches the reference on {checks} programs")
    return Verdict(0.0, f"{len(problems)} of {checks} programs differ; first: {problems[0]}. "
                        "If the rule tests of Dual pass, look at jvp: it seeds input i with Dual(x_i, t_i) and "
                        "returns the output's (primal, tangent); a plain-number output is a constant.")


def jvp_linear(student, reference, options) -> Verdict:
    """jvp(f, x, αt + βs) = α jvp(f, x, t) + β jvp(f, x, s), jvp(f, x, 0) = (f(x), 0); values right."""
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value if isinstance(reference.value, dict) else {}
    alpha, beta = _number(want.get("alpha")), _number(want.get("beta"))
    runs = {}
    for key in ("t", "s", "combined", "zero"):
        err = error_text(got.get(key), DISPLAY)
        if err:
            return Verdict(0.0, f"jvp raised {err}")
        mine = _pair(got.get(key))
        if mine is None:
            return Verdict(0.0, f"jvp returned {describe_value(got.get(key))}, expected (f(x), ∇f·t)")
        ref = _pair(want.get(key))
        if ref is not None and not _close(mine[0], ref[0]):
            return Verdict(0.0, f"jvp's value f(x) is {mine[0]:.10g}, expected {ref[0]:.10g} (the value must not "
                                "depend on the tangent)")
        runs[key] = mine
    combined = alpha * runs["t"][1] + beta * runs["s"][1]
    if not _close(runs["combined"][1], combined, 1e-9, 1e-9):
        return Verdict(0.0, f"jvp is not linear in the tangent: jvp(f, x, {alpha:g}t {'+' if beta >= 0 else '-'} "
                            f"{abs(beta):g}s) gave {runs['combined'][1]:.10g}, but {alpha:g}·{runs['t'][1]:.10g} "
                            f"{'+' if beta >= 0 else '-'} {abs(beta):g}·{runs['s'][1]:.10g} = {combined:.10g}. "
                            "One forward pass computes J·t, a linear function of t: every rule must multiply the "
                            "incoming tangents by local derivatives, and jvp must seed input i with tangent t_i.")
    if abs(runs["zero"][1]) > 1e-12:
        return Verdict(0.0, f"jvp(f, x, 0) gave the tangent {runs['zero'][1]:.10g}, expected 0 (J·0 = 0): some "
                            "rule adds a tangent that does not come from the inputs.")
    note = ""
    ref_t = _pair(want.get("t"))
    if ref_t is not None and not _close(runs["t"][1], ref_t[1], 1e-8, 1e-9):
        note = " (your tangents differ from the reference's: see the other tests)"
    return Verdict(1.0, f"jvp is linear in the tangent and jvp(f, x, 0) has tangent 0{note}")


def jvp_contract(student, reference, options) -> Verdict:
    """jvp returns (f(x), ∇f·t) as floats, also for plain-number outputs and an input returned as is."""
    problems, checks = _labelled(student, reference, 1e-12, 1e-15, _value_tangent)
    if not problems:
        return Verdict(1.0, f"jvp returns (value, tangent) pairs of floats in all {checks} cases")
    return Verdict(0.0, f"{problems[0]}. jvp returns two floats; f may return a plain number (a constant: "
                        "its tangent is 0, as if lifted to c + 0ε) or one of its inputs unchanged.")


# ----------------------------------------------------------------- gradient


def _floats(v: Any) -> Optional[List[float]]:
    if not isinstance(v, list):
        return None
    values = [_number(x) for x in v]
    return None if any(x is None for x in values) else values


def _all_ones_evidence(got: List[float], want: List[float]) -> bool:
    """Every entry equals ∇f·(1, ..., 1), which the true gradient's entries do not all equal (named only
    when `gradient` also called f fewer than n times: n passes with a broken `jvp` is another mistake)."""
    total = sum(want)
    return (len(want) >= 2 and not all(_close(w, want[0], 1e-6, 1e-9) for w in want)
            and all(_close(g, total, 1e-7, 1e-9) for g in got))


def gradient_values(student, reference, options) -> Verdict:
    """gradient(f, *x) equals the reference's [∂f/∂x_1, ..., ∂f/∂x_n]."""
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value if isinstance(reference.value, dict) else {}
    for label, expected in want.items():
        ref = _floats(expected.get("gradient") if isinstance(expected, dict) else None)
        if ref is None:
            continue
        case = got.get(label) if isinstance(got.get(label), dict) else {}
        err = error_text(case.get("gradient"), DISPLAY)
        if err:
            return Verdict(0.0, f"{label}: raised {err}")
        mine = _floats(case.get("gradient"))
        if mine is None or len(mine) != len(ref):
            return Verdict(0.0, f"{label}: gave {describe_value(case.get('gradient'))}, expected {len(ref)} floats")
        wrong = [i for i, (m, r) in enumerate(zip(mine, ref)) if not _close(m, r, 1e-9, 1e-9)]
        if not wrong:
            continue
        shown = ", ".join(f"{m:.10g}" for m in mine)
        expected_text = ", ".join(f"{r:.10g}" for r in ref)
        text = (f"{label}: gave [{shown}], expected [{expected_text}] (entry {wrong[0] + 1} first differs). "
                "Entry i is the tangent of one forward pass with t = e_i (1 at input i, 0 elsewhere).")
        calls = case.get("calls")
        one_pass = isinstance(calls, int) and not isinstance(calls, bool) and calls < len(ref)
        if one_pass and _all_ones_evidence(mine, ref):
            return Verdict(0.0, f"{text} Every entry you returned equals ∇f·(1, ..., 1) = {sum(ref):.10g}: the "
                                "derivative along the all-ones direction. One forward pass gives one directional "
                                "derivative J·t, not the whole gradient; n inputs need n passes.",
                           misconception="one-pass-gradient")
        return Verdict(0.0, text)
    return Verdict(1.0, f"gradient matches the reference on {len(want)} functions (1, 2 and 5 inputs)")


def _rows(outcome) -> List[Dict[str, Any]]:
    return [r for r in outcome.value if isinstance(r, dict)] if isinstance(outcome.value, list) else []


def _inputs(n: Any) -> str:
    return f"{n} input" if n == 1 else f"{n} inputs"


def _times(k: Any) -> str:
    return "once" if k == 1 else f"{k} times"


def gradient_passes(student, reference, options) -> Verdict:
    """For n = 1..8 inputs, gradient evaluates f exactly as often as the reference (n times).

    Only the count is judged here (the values are `gradient_values`' test); the result must be n numbers.
    """
    got, want = _rows(student), _rows(reference)
    if len(got) != len(want):
        return Verdict(0.0, "the probe returned the wrong number of rows")
    figure = {"kind": "passes",
              "inputs": [r.get("inputs") for r in want],
              "reference": [r.get("calls") for r in want],
              "student": [None if r.get("exceeded") else r.get("calls") for r in got]}
    for mine, ref in zip(got, want):
        n = ref.get("inputs")
        if mine.get("exceeded"):
            return Verdict(0.0, f"with {_inputs(n)} your gradient called f more than {4 * n + 8} times (stopped); "
                                f"forward mode needs {n} passes, one per input", figure=figure)
        err = error_text(mine.get("gradient"), DISPLAY)
        if err:
            return Verdict(0.0, f"with {_inputs(n)} gradient raised {err}", figure=figure)
    wrong = [(m, r) for m, r in zip(got, want) if m.get("calls") != r.get("calls")]
    if not wrong:
        return Verdict(1.0, "gradient evaluates f exactly n times for n = 1..8 inputs (one forward pass per input)",
                       figure=figure)
    m, r = wrong[0]
    listing = ", ".join(f"{x.get('inputs')}→{x.get('calls')}" for x in got)
    text = (f"gradient evaluated f {_times(m.get('calls'))} for {_inputs(r.get('inputs'))} "
            f"({m.get('dual_calls')} of them on dual numbers); forward mode needs exactly {r.get('calls')}: one "
            f"pass per input, each with the tangent e_i (inputs→evaluations: {listing}). Reverse mode would "
            "need one backward pass.")
    one_pass = [x for x in got if isinstance(x.get("inputs"), int) and x["inputs"] >= 2 and x.get("calls") == 1
                and isinstance(x.get("gradient"), list) and len(x["gradient"]) == x["inputs"]]
    if one_pass:
        n = one_pass[0]["inputs"]
        return Verdict(0.0, f"{text} With {n} inputs you evaluated f once and returned {n} numbers: one forward "
                            "pass gives one directional derivative ∇f·t, not the gradient.",
                       misconception="one-pass-gradient", figure=figure)
    return Verdict(0.0, text, figure=figure)


# ----------------------------------------------------------------- Jacobian


def jacobian(student, reference, options) -> Verdict:
    """Column i of J of f: R^3 -> R^2 from one pass with t = e_i: both outputs' (value, tangent)."""
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value if isinstance(reference.value, dict) else {}
    mine_passes = got.get("passes") if isinstance(got.get("passes"), list) else []
    ref_passes = want.get("passes") if isinstance(want.get("passes"), list) else []
    if len(mine_passes) != len(ref_passes):
        return Verdict(0.0, "the probe returned the wrong number of passes")
    for i, (mine, ref) in enumerate(zip(mine_passes, ref_passes)):
        err = error_text(mine, DISPLAY)
        if err:
            return Verdict(0.0, f"the pass with t = e_{i + 1} raised {err}")
        if not isinstance(mine, list) or len(mine) != len(ref):
            return Verdict(0.0, f"the pass with t = e_{i + 1} gave {describe_value(mine)}")
        for j, (m, r) in enumerate(zip(mine, ref)):
            problem = _mismatch(m, r, 1e-9, 1e-12)
            if problem:
                return Verdict(0.0, f"f(x1, x2, x3) = (x1·x2·x3 + e^x1, log(x2² + 1)/(x3 + 2) + σ(x1 - x3) + "
                                    f"relu(x2)) at {want.get('point')}: with t = e_{i + 1}, output y{j + 1} "
                                    f"{problem}. Its tangent is J[{j + 1}][{i + 1}] = ∂y{j + 1}/∂x{i + 1}: one "
                                    "forward pass with t = e_i gives the whole column i of the Jacobian.")
    return Verdict(1.0, "all three columns of the 2×3 Jacobian match (one forward pass per column)")


def _pairs_view(value: Any) -> Any:
    """What a rule judge compares: the results of each case (for matching a submission with a mutant)."""
    return [c.get("results") if isinstance(c, dict) else None for c in value] if isinstance(value, list) else value


product_rule.view = _pairs_view
primitive.view = _pairs_view
unary_rule.view = _pairs_view
gradient_passes.view = lambda value: ([r.get("calls") if isinstance(r, dict) else None for r in value]
                                      if isinstance(value, list) else value)

JUDGES = {
    "product_rule": product_rule,
    "primitive": primitive,
    "unary_rule": unary_rule,
    "slides": slides,
    "programs": programs,
    "jvp_linear": jvp_linear,
    "jvp_contract": jvp_contract,
    "gradient_values": gradient_values,
    "gradient_passes": gradient_passes,
    "jacobian": jacobian,
}
