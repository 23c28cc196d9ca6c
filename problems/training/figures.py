"""Report figure of `training`: the training loss per epoch and the held-out accuracy against the target."""

from typing import Any, Dict, List, Tuple

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from graders.api import MARKERS_UP_TO, svg, thin


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
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # epochs and calls are whole: no tick at 1.25
    ax.set_ylabel("loss")
    if figure.get("accuracy") is not None:
        ax2 = ax.twinx()
        ax2.axhline(figure["accuracy"], color="tab:green", linestyle="--",
                    label=f"held-out accuracy {figure['accuracy']:.1%}")
        ax2.axhline(figure.get("target", 0.75), color="tab:red", linestyle=":", label="target")
        ax2.set_ylim(0, 1)
        ax2.set_ylabel("accuracy")
        ax2.legend(loc="lower left", fontsize=8)
    ax.legend(loc="upper right", fontsize=8)
    return svg(fig)


FIGURES = {"training": training_figure}
