"""Figures for the reports, drawn with matplotlib and inlined as SVG (reports work offline)."""

from __future__ import annotations

import io
from typing import Any, Dict, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.fonttype"] = "none"  # text stays text: small files


#: points a figure draws per curve (more are thinned evenly): a report's size does not follow the student's data
MAX_POINTS = 2000
#: curves with more points than this are drawn as a plain line (no marker per point)
MARKERS_UP_TO = 60


def thin(xs: Sequence[Any], ys: Sequence[Any], cap: int = MAX_POINTS) -> Tuple[List[Any], List[Any]]:
    """At most `cap` (x, y) pairs, evenly spread over the pairs given (first and last kept)."""
    n = min(len(xs), len(ys))
    if n <= cap:
        return list(xs[:n]), list(ys[:n])
    keep = sorted({round(i * (n - 1) / (cap - 1)) for i in range(cap)})
    return [xs[i] for i in keep], [ys[i] for i in keep]


def _svg(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _student_vs_reference(figure: Dict[str, Any], y, xlabel: str, ylabel: str, title: str = "") -> str:
    """Log-log curves of y(row) against nodes for the reference's rows and the student's."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for label, key, style in (("reference", "reference", "o-"), ("your code", "student", "s--")):
        given = figure.get(key) if isinstance(figure.get(key), list) else []
        rows = [r for r in given[: 4 * MAX_POINTS] if isinstance(r, dict) and y(r) is not None]
        xs, ys = thin([r["nodes"] for r in rows], [y(r) for r in rows])
        ax.plot(xs, ys, style if len(xs) <= MARKERS_UP_TO else style.replace("o", "").replace("s", ""), label=label)
        if rows and rows[-1].get("exceeded"):
            ax.annotate("stopped: budget exceeded", (xs[-1], ys[-1]), textcoords="offset points", xytext=(-60, 8), fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.legend()
    return _svg(fig)


def work_figure(figure: Dict[str, Any]) -> str:
    """chain_rule + parents uses per graph size: the student's against the reference's."""
    return _student_vs_reference(
        figure, lambda r: r.get("chain_rule", 0) + r.get("parents", 0),
        "nodes in the diamond chain", "uses of chain_rule / parents",
        "Work vs graph size (linear is a straight line of slope 1 on log-log)",
    )


def time_figure(figure: Dict[str, Any]) -> str:
    """Best-of-3 backpropagation time per graph size."""
    return _student_vs_reference(
        figure, lambda r: r["seconds"] * 1000 if isinstance(r.get("seconds"), (int, float)) else None,
        "nodes", "milliseconds (best of 3)",
    )


def _loss_points(figure: Dict[str, Any]) -> Tuple[List[Any], List[Any]]:
    """(log_fn call number, loss) pairs to draw: `calls` when it matches `losses`, else 1, 2, ...; thinned."""
    losses = figure.get("losses") if isinstance(figure.get("losses"), list) else []
    calls = figure.get("calls")
    if not isinstance(calls, list) or len(calls) != len(losses):
        calls = range(1, len(losses) + 1)
    return thin(calls, losses)


def training_figure(figure: Dict[str, Any]) -> str:
    """Training loss per epoch (per log_fn call, at most MAX_POINTS of them) and held-out accuracy."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    calls, losses = _loss_points(figure)
    ax.plot(calls, losses, "o-" if len(losses) <= MARKERS_UP_TO else "-", label="training loss")
    log_calls = figure.get("log_calls")
    if isinstance(log_calls, int) and log_calls > len(losses):
        ax.set_title(f"log_fn called {log_calls:,} times: {len(losses):,} of its losses shown", fontsize=9)
    ax.set_xlabel("epoch" if not calls or calls[-1] == len(calls) else "log_fn call")
    ax.set_ylabel("loss")
    if figure.get("accuracy") is not None:
        ax2 = ax.twinx()
        ax2.axhline(figure["accuracy"], color="tab:green", linestyle="--", label=f"held-out accuracy {figure['accuracy']:.1%}")
        ax2.axhline(figure.get("target", 0.75), color="tab:red", linestyle=":", label="target")
        ax2.set_ylim(0, 1)
        ax2.set_ylabel("accuracy")
        ax2.legend(loc="lower left", fontsize=8)
    ax.legend(loc="upper right", fontsize=8)
    return _svg(fig)


FIGURES = {"work": work_figure, "time": time_figure, "training": training_figure}


def figure_svg(kind: str, data: Dict[str, Any]) -> Optional[str]:
    """An inline SVG for a test's figure data (`kind` picks the drawing), or None."""
    draw = FIGURES.get(kind)
    if draw is None:
        return None
    try:
        return draw(data)
    except Exception:  # malformed student data (e.g. a number matplotlib cannot place): no figure, never a crash
        plt.close("all")
        return None
