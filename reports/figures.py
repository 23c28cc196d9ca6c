"""Figures for the reports, drawn with matplotlib and inlined as SVG (reports work offline)."""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.fonttype"] = "none"  # text stays text: small files


#: held while pyplot draws (its state is global: one figure at a time per process)
DRAWING = threading.RLock()

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


def svg(fig) -> str:
    """The figure as inline SVG text (from `<svg`), the figure closed."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


@lru_cache(maxsize=None)
def figure_functions(problem_id: Optional[str]) -> Dict[str, Callable[[Dict[str, Any]], str]]:
    """`FIGURES` of the problem's own `figures.py` ({kind: draw(data) -> svg}); {} for an unknown problem.

    Looked up once per problem and process (a report draws many figures)."""
    from graders.spec import load_problems, problem_module

    spec = next((p for p in load_problems() if p.id == problem_id), None)
    module = problem_module(spec, "figures.py") if spec is not None else None
    return dict(getattr(module, "FIGURES", {})) if module is not None else {}


def figure_svg(kind: str, data: Dict[str, Any], problem: Optional[str] = None) -> Optional[str]:
    """An inline SVG for a test's figure data, drawn by the `kind` entry of the problem's FIGURES, or None when
    the problem draws no such figure. A figure that cannot be drawn raises (graders.grade.draw_figures decides
    whose fault that is); its half-drawn figures are closed."""
    draw = figure_functions(problem).get(kind)
    if draw is None:
        return None
    with DRAWING:  # pyplot is not thread-safe: problems graded in parallel threads draw one at a time
        try:
            return draw(data)
        except BaseException:
            plt.close("all")
            raise
