"""The tools a problem's `figures.py` draws with (through graders.api): thinning a curve, a figure as inline SVG.

Importing this module imports no matplotlib: judges share graders.api with figures and load on every grading,
figures only when a report is drawn. A problem's figure functions are called by `graders.figures.figure_svg`,
which sets matplotlib up first (the Agg backend, SVG text kept as text).
"""

from __future__ import annotations

import io
from typing import Any, List, Sequence, Tuple

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


def plain_log_ticks(fig) -> None:
    """Log-scaled axes of `fig` labelled in plain numbers (1000, 1e+06) instead of matplotlib's default
    10^3 written in mathtext, whose parser costs about half a second the first time a process draws one."""
    from matplotlib.ticker import LogFormatter

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":  # the plain formatter, with its labels between decades on short axes
                axis.set_major_formatter(LogFormatter(labelOnlyBase=False))
                axis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def svg(fig) -> str:
    """The figure as inline SVG text (from `<svg`), the figure closed; log axes labelled in plain numbers."""
    import matplotlib.pyplot as plt  # already imported by whoever made `fig`

    plain_log_ticks(fig)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]
