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


#: the mantissas of a log axis's labelled ticks (1, 2, 5, 10, 20, 50, ...), when the axis shows at least two
LOG_TICKS = (1.0, 2.0, 5.0)


def plain_log_ticks(fig) -> None:
    """Log-scaled axes of `fig` labelled in plain numbers (5000, 0.02) instead of matplotlib's default 10^3 in
    mathtext, whose parser costs about half a second the first time a process draws one: ticks at 1, 2 and 5
    times the powers of ten, without minor ticks (a minor tick per integer mantissa made three quarters of a
    figure's drawing time); an axis too short for two of them keeps matplotlib's minor ticks, labelled."""
    from matplotlib.ticker import FuncFormatter, LogFormatter, LogLocator, NullLocator

    for ax in fig.axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            if axis.get_scale() != "log":
                continue
            low, high = sorted(limits)
            locator = LogLocator(subs=LOG_TICKS)
            if sum(low <= t <= high for t in locator.tick_values(low, high)) >= 2:
                axis.set_major_locator(locator)
                axis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:g}"))
                axis.set_minor_locator(NullLocator())
            else:  # the plain formatter, with its labels between decades
                axis.set_major_formatter(LogFormatter(labelOnlyBase=False))
                axis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


#: inches around the tight box of a figure's artists (matplotlib's savefig.pad_inches default)
TIGHT_PAD = 0.1


def svg(fig) -> str:
    """The figure as inline SVG text (from `<svg`), the figure closed; log axes labelled in plain numbers. No date
    is written in it: the same figure is the same text."""
    import matplotlib.pyplot as plt  # already imported by whoever made `fig`
    from matplotlib.backends.backend_agg import RendererAgg

    plain_log_ticks(fig)
    buffer = io.StringIO()
    # the tight box measured once, without drawing (what bbox_inches="tight" finds by drawing the whole figure first)
    box = fig.get_tightbbox(RendererAgg(fig.bbox.width, fig.bbox.height, fig.dpi)).padded(TIGHT_PAD)
    fig.savefig(buffer, format="svg", bbox_inches=box, metadata={"Date": None})  # the same data, the same SVG
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]
