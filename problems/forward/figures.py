"""Report figures of `forward`: forward passes against inputs, and a tangent against the incoming tangent."""

from typing import Any, Dict, List, Optional

import matplotlib.pyplot as plt

from graders.api import MAX_POINTS, svg, thin


def _numbers(values: Any) -> List[Optional[float]]:
    """The plottable entries of a list (None where an entry is not a finite number)."""
    out: List[Optional[float]] = []
    for v in values[: 4 * MAX_POINTS] if isinstance(values, list) else []:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and abs(float(v)) < float("inf")
        out.append(float(v) if ok else None)
    return out


def _points(xs: List[Optional[float]], ys: List[Optional[float]]):
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    return thin([p[0] for p in pairs], [p[1] for p in pairs])


def passes_figure(figure: Dict[str, Any]) -> str:
    """Calls of f made by `gradient` for n inputs: forward mode n (the reference), the student's, reverse mode 1."""
    inputs = _numbers(figure.get("inputs"))
    fig, ax = plt.subplots(figsize=(5, 3.2))
    xs, ys = _points(inputs, _numbers(figure.get("reference")))
    ax.plot(xs, ys, "o-", label="forward mode: n passes (reference)")
    xs, ys = _points(inputs, _numbers(figure.get("student")))
    ax.plot(xs, ys, "s--", label="your gradient")
    known = [x for x in inputs if x is not None]
    if known:
        ax.plot([min(known), max(known)], [1, 1], ":", color="gray", label="reverse mode: 1 backward pass")
    ax.set_xlabel("inputs n of f: R^n -> R")
    ax.set_ylabel("evaluations of f")
    ax.set_title("Cost of the gradient: one forward pass per input")
    ax.legend(fontsize=8)
    return svg(fig)


def tangent_line_figure(figure: Dict[str, Any]) -> str:
    """Output tangent of g(a + bε) against the incoming tangent b: the rule g'(a)·b is a line through 0."""
    bs = _numbers(figure.get("b"))
    fig, ax = plt.subplots(figsize=(5, 3.2))
    xs, ys = _points(bs, _numbers(figure.get("reference")))
    ax.plot(xs, ys, "o-", label="g'(a)·b (reference)")
    xs, ys = _points(bs, _numbers(figure.get("student")))
    ax.plot(xs, ys, "s--", label="your tangent")
    ax.axhline(0, color="gray", linewidth=0.5)
    ax.axvline(0, color="gray", linewidth=0.5)
    what = str(figure.get("what", "g"))[:20]
    a = figure.get("a")
    at = f" at a = {a:.4g}" if isinstance(a, (int, float)) and not isinstance(a, bool) else ""
    ax.set_xlabel("incoming tangent b")
    ax.set_ylabel(f"tangent of {what}(a + bε)")
    ax.set_title(f"{what}: the tangent must be linear in b{at}")
    ax.legend(fontsize=8)
    return svg(fig)


FIGURES = {"passes": passes_figure, "tangent_line": tangent_line_figure}
