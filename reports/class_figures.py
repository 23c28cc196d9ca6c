"""Figures of the class report, drawn with matplotlib and inlined as SVG (no external resources)."""

from __future__ import annotations

import io
from typing import Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

#: Drop matplotlib's RDF metadata block: the page then names no outside resource at all.
NO_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


def _svg(fig) -> str:
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata=NO_METADATA)
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def score_histogram(scores: Sequence[float], max_score: float) -> str:
    """Histogram of total scores in ten bins from 0 to `max_score`."""
    fig, ax = plt.subplots(figsize=(6, 3))
    top = max_score if max_score > 0 else max(list(scores) + [1.0])
    edges = [top * i / 10 for i in range(11)]
    ax.hist([min(max(s, 0.0), top) for s in scores], bins=edges, color="#0969da", edgecolor="white")
    ax.set_xlim(0, top)
    ax.set_xlabel(f"total score (out of {top:g})")
    ax.set_ylabel("submissions")
    locator = ax.yaxis.get_major_locator()
    if isinstance(locator, MaxNLocator):  # matplotlib's default AutoLocator is one
        locator.set_params(integer=True)
    ax.set_title(f"{len(scores)} submissions")
    return _svg(fig)


def problem_distributions(problems: Sequence[Tuple[str, Sequence[float], float]]) -> str:
    """One box (with every submission as a dot) per problem, as a percentage of its maximum."""
    fig, ax = plt.subplots(figsize=(6, 3))
    data = [[100.0 * s / top if top else 0.0 for s in scores] for _, scores, top in problems]
    ax.boxplot(data, widths=0.5, showfliers=False)
    for index, values in enumerate(data, start=1):
        offsets = [((k * 7) % 11 - 5) / 40 for k in range(len(values))]  # deterministic jitter
        ax.plot([index + o for o in offsets], values, "o", alpha=0.5, markersize=4, color="#0969da")
    ax.set_xticks(range(1, len(problems) + 1), [f"{pid}\n(/{top:g})" for pid, _, top in problems])
    ax.set_ylim(-5, 105)
    ax.set_ylabel("% of the problem's points")
    return _svg(fig)


def similarity_histogram(scores: Sequence[float], threshold: float) -> str:
    """Histogram of every pair's similarity score in twenty bins over [0, 1], on a log scale (most pairs
    share nothing), with the attention threshold as a dashed line."""
    fig, ax = plt.subplots(figsize=(6, 3))
    edges = [i / 20 for i in range(21)]
    ax.hist([min(max(s, 0.0), 1.0) for s in scores], bins=edges, color="#0969da", edgecolor="white")
    if scores:
        ax.set_yscale("log")
    ax.axvline(threshold, color="#cf222e", linestyle="--", linewidth=1)
    ax.text(threshold, 1, f" {threshold:g}", color="#cf222e", transform=ax.get_xaxis_transform(), va="top", ha="left")
    ax.set_xlim(0, 1)
    ax.set_xlabel("similarity score")
    ax.set_ylabel("pairs")
    ax.set_title(f"{len(scores)} pairs")
    return _svg(fig)
