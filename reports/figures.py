"""Figures for the reports, drawn with matplotlib and inlined as SVG (reports work offline)."""

from __future__ import annotations

import io
from typing import Any, Dict, List, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.fonttype"] = "none"  # text stays text: small files


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
        rows = [r for r in figure.get(key) or [] if isinstance(r, dict) and y(r) is not None]
        xs, ys = [r["nodes"] for r in rows], [y(r) for r in rows]
        ax.plot(xs, ys, style, label=label)
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


def training_figure(figure: Dict[str, Any]) -> str:
    """Training loss per epoch and held-out accuracy."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    losses: Sequence[float] = figure.get("losses") or []
    ax.plot(range(1, len(losses) + 1), losses, "o-", label="training loss")
    ax.set_xlabel("epoch")
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
