"""A test's figure, drawn while grading (or by a report, for a result read back from the gradebook).

A verdict's `figure` data names a `kind`; the problem's own `figures.py` draws it (`FIGURES = {kind: draw}`,
`draw(data) -> svg`) with the tools of graders.api (`graders.drawing`). Drawn with matplotlib, inlined as SVG
(reports work offline). Importing this module sets matplotlib up: the Agg backend, SVG text kept as text.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any, Callable, Dict, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .spec import load_problems, problem_module

plt.rcParams["svg.fonttype"] = "none"  # text stays text: small files


#: held while pyplot draws (its state is global: one figure at a time per process)
DRAWING = threading.RLock()


@cache
def figure_functions(problem_id: Optional[str]) -> Dict[str, Callable[[Dict[str, Any]], str]]:
    """`FIGURES` of the problem's own `figures.py` ({kind: draw(data) -> svg}); {} for an unknown problem.

    Looked up once per problem and process (a report draws many figures)."""
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
