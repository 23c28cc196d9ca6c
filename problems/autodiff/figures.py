"""Report figures of `autodiff`: work and time against graph size, the student's beside the reference's."""

from typing import Any, Dict

import matplotlib.pyplot as plt

from graders.api import MARKERS_UP_TO, MAX_POINTS, svg, thin


def _student_vs_reference(figure: Dict[str, Any], y, xlabel: str, ylabel: str, title: str = "") -> str:
    """Log-log curves of y(row) against nodes for the reference's rows and the student's."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for label, key, style in (("reference", "reference", "o-"), ("your code", "student", "s--")):
        given = figure.get(key) if isinstance(figure.get(key), list) else []
        rows = [r for r in given[: 4 * MAX_POINTS] if isinstance(r, dict) and y(r) is not None]
        xs, ys = thin([r["nodes"] for r in rows], [y(r) for r in rows])
        ax.plot(xs, ys, style if len(xs) <= MARKERS_UP_TO else style.replace("o", "").replace("s", ""), label=label)
        if rows and rows[-1].get("exceeded"):
            ax.annotate("stopped: budget exceeded", (xs[-1], ys[-1]), textcoords="offset points", xytext=(-60, 8),
                        fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.legend()
    return svg(fig)


def work_figure(figure: Dict[str, Any]) -> str:
    """chain_rule + parents uses (and nodes yielded, topological_sort alone) per graph size: the student's against
    the reference's."""
    return _student_vs_reference(
        figure, lambda r: r.get("chain_rule", 0) + r.get("parents", 0) + r.get("yielded", 0),
        "nodes in the diamond chain", "uses of chain_rule / parents (+ nodes yielded)",
        "Work vs graph size (linear is a straight line of slope 1 on log-log)",
    )


def time_figure(figure: Dict[str, Any]) -> str:
    """The best backpropagation time per graph size (of 2 or 3 runs)."""
    return _student_vs_reference(
        figure, lambda r: r["seconds"] * 1000 if isinstance(r.get("seconds"), (int, float)) else None,
        "nodes", "milliseconds (best run)",
    )


FIGURES = {"work": work_figure, "time": time_figure}
