"""Report figures of `static_graph`: per sess.run, the nodes the fetches need against the nodes evaluated."""

from typing import Any, Dict, List

import matplotlib.pyplot as plt
import numpy as np

from graders.api import svg

#: runs drawn at most (a figure's size does not follow the student's data)
MAX_RUNS = 12


def _count(value: Any) -> float:
    """A count from the figure data, 0 for anything that is not a plain non-negative number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
        return 0.0
    return float(value)


def evaluations_figure(figure: Dict[str, Any]) -> str:
    """Grouped bars per run: nodes needed (the fed ones hatched), evaluated by the reference, evaluated by the student.

    A run that raised is marked "raised" above its bar (on purpose for the reference
    when a needed placeholder was not fed).
    """
    runs: List[Dict[str, Any]] = [r for r in (figure.get("runs") or [])[:MAX_RUNS] if isinstance(r, dict)]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.25 * len(runs) + 1.5), 3.4))
    xs = np.arange(len(runs))
    width = 0.27
    needed = [_count(r.get("needed")) for r in runs]
    fed = [min(_count(r.get("fed")), n) for r, n in zip(runs, needed)]
    reference = [_count(r.get("reference")) for r in runs]
    student = [_count(r.get("student")) for r in runs]
    bars = [ax.bar(xs - width, needed, width, label="needed by the fetches", color="#bbbbbb")]
    ax.bar(xs - width, fed, width, label="of which fed", color="#bbbbbb", hatch="///", edgecolor="#666666")
    bars.append(ax.bar(xs, reference, width, label="evaluated: reference", color="tab:blue"))
    bars.append(ax.bar(xs + width, student, width, label="evaluated: your code", color="tab:orange"))
    for group in bars:
        ax.bar_label(group, labels=[f"{v:g}" if v else "" for v in group.datavalues], fontsize=6, padding=1)
    top = max(needed + reference + student + [1.0])
    for i, r in enumerate(runs):
        if r.get("reference_raised"):
            ax.annotate("raised", (xs[i], reference[i]), textcoords="offset points", xytext=(0, 9),
                        ha="center", fontsize=7, color="tab:blue")
        if r.get("raised"):
            ax.annotate("raised", (xs[i] + width, student[i]), textcoords="offset points", xytext=(0, 12),
                        ha="center", fontsize=7, color="tab:orange")
        elif r.get("student") is None:
            ax.annotate("no data", (xs[i] + width, 0), textcoords="offset points", xytext=(0, 3),
                        ha="center", fontsize=7, color="tab:orange")
    labels = [str(r.get("label", ""))[:28] for r in runs]
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=7)
    ax.set_ylabel("nodes")
    ax.set_ylim(0, top * 1.25)
    ax.set_title("Per sess.run: nodes needed vs nodes evaluated (each needed node once)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return svg(fig)


FIGURES = {"evaluations": evaluations_figure}
