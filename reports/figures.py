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


def work_figure(figure: Dict[str, Any]) -> str:
    """chain_rule + parents uses per graph size: the student's against the reference's."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for label, rows, style in (("reference", figure.get("reference") or [], "o-"), ("your code", figure.get("student") or [], "s--")):
        xs = [r["nodes"] for r in rows if isinstance(r, dict)]
        ys = [r.get("chain_rule", 0) + r.get("parents", 0) for r in rows if isinstance(r, dict)]
        ax.plot(xs, ys, style, label=label)
        if rows and isinstance(rows[-1], dict) and rows[-1].get("exceeded"):
            ax.annotate("stopped: budget exceeded", (xs[-1], ys[-1]), textcoords="offset points", xytext=(-60, 8), fontsize=8)
    ax.set_xlabel("nodes in the diamond chain")
    ax.set_ylabel("uses of chain_rule / parents")
    ax.set_yscale("log")
    ax.set_title("Work vs graph size (linear is a straight line of slope 1 on log-log)")
    ax.set_xscale("log")
    ax.legend()
    return _svg(fig)


def time_figure(figure: Dict[str, Any]) -> str:
    """Best-of-5 backpropagation time per graph size."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for label, rows, style in (("reference", figure.get("reference") or [], "o-"), ("your code", figure.get("student") or [], "s--")):
        xs = [r["nodes"] for r in rows if isinstance(r, dict)]
        ys = [r["seconds"] * 1000 for r in rows if isinstance(r, dict)]
        ax.plot(xs, ys, style, label=label)
    ax.set_xlabel("nodes")
    ax.set_ylabel("milliseconds (best of 5)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.legend()
    return _svg(fig)


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
    except (KeyError, TypeError, ValueError):  # malformed student data: no figure, never a crash
        plt.close("all")
        return None
