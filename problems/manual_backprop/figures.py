"""Report figure of `manual_backprop`: the digits run's training loss per epoch (yours and the reference's)
and the test accuracy against the target."""

from typing import Any, Dict, List

import matplotlib.pyplot as plt
import numpy as np

from graders.api import MARKERS_UP_TO, svg, thin


def _curve(values: Any) -> List[float]:
    """Finite positive losses as floats; anything else (inf, nan, not a number) becomes NaN: a gap."""
    out = []
    for v in values if isinstance(values, list) else []:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) and v > 0
        out.append(float(v) if ok else float("nan"))
    return out


def digits_training_figure(figure: Dict[str, Any]) -> str:
    """Left: training loss per epoch on a log scale, yours against the reference's (with the same given
    `train`). Right: test accuracy, yours and the reference's, with the target line."""
    fig, (ax, bars) = plt.subplots(1, 2, figsize=(7.5, 3.2), gridspec_kw={"width_ratios": [2.2, 1]})
    for key, label, style in (("reference_losses", "reference", "o-"), ("losses", "your functions", "s--")):
        losses = _curve(figure.get(key))
        epochs, losses = thin(list(range(1, len(losses) + 1)), losses)
        if epochs:
            ax.plot(epochs, losses, style if len(epochs) <= MARKERS_UP_TO else style[1:], label=label, markersize=3)
    raw = figure.get("losses") if isinstance(figure.get("losses"), list) else []
    bad = [i + 1 for i, v in enumerate(raw) if not (isinstance(v, (int, float)) and np.isfinite(v))]
    if bad:
        ax.set_title(f"your loss is inf/nan from epoch {bad[0]} (gaps)", fontsize=9)
    if any(np.isfinite(_curve(figure.get(k))).any() for k in ("losses", "reference_losses")):
        ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("mean training loss")
    ax.legend(fontsize=8)
    target = float(figure.get("target", 0.95))
    names, heights, colours = [], [], []
    for key, label, colour in (("accuracy", "yours", "tab:orange"), ("reference_accuracy", "reference", "tab:blue")):
        value = figure.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
            names.append(label)
            heights.append(float(value))
            colours.append(colour)
    bars.bar(names, heights, color=colours)
    for i, h in enumerate(heights):
        bars.annotate(f"{h:.1%}", (i, h), ha="center", va="bottom", fontsize=8)
    bars.axhline(target, color="tab:red", linestyle=":", label=f"target {target:.0%}")
    bars.set_ylim(0, 1.25)
    bars.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    bars.set_ylabel("test accuracy")
    bars.legend(loc="upper center", fontsize=8, frameon=False)
    fig.tight_layout()
    return svg(fig)


FIGURES = {"digits_training": digits_training_figure}
