"""A test's figure, drawn while grading (or by a report, for a result read back from the gradebook).

A verdict's `figure` data names a `kind`; the problem's own `figures.py` draws it (`FIGURES = {kind: draw}`,
`draw(data) -> svg`) with the tools of graders.api (`graders.drawing`). Drawn with matplotlib, inlined as SVG
(reports work offline). Importing this module sets matplotlib up: the Agg backend, SVG text kept as text.
"""

from __future__ import annotations

import json
import threading
from functools import cache, lru_cache
from typing import Any, Callable, Dict, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .spec import load_problems, problem_module

plt.rcParams["svg.fonttype"] = "none"  # text stays text: small files
plt.rcParams["svg.hashsalt"] = "autograde"  # ids made from the content, not at random: the same data, the same SVG


#: held while pyplot draws (its state is global: one figure at a time per process)
DRAWING = threading.RLock()


@cache
def figure_functions(problem_id: Optional[str]) -> Dict[str, Callable[[Dict[str, Any]], str]]:
    """`FIGURES` of the problem's own `figures.py` ({kind: draw(data) -> svg}); {} for an unknown problem.

    Looked up once per problem and process (a report draws many figures)."""
    spec = next((p for p in load_problems() if p.id == problem_id), None)
    module = problem_module(spec, "figures.py") if spec is not None else None
    return dict(getattr(module, "FIGURES", {})) if module is not None else {}


#: figure data (as JSON text) up to this size is remembered with its SVG (`_drawn_once`); larger data is drawn anew
REMEMBERED_DATA = 256 * 1024


def figure_svg(kind: str, data: Dict[str, Any], problem: Optional[str] = None) -> Optional[str]:
    """An inline SVG for a test's figure data, drawn by the `kind` entry of the problem's FIGURES, or None when
    the problem draws no such figure. A figure that cannot be drawn raises (graders.grade.draw_figures decides
    whose fault that is); its half-drawn figures are closed.

    A figure is a function of its data, and the submissions of a class often give the same data (the same work
    counts, the reference's curves): the SVGs of the last figures drawn are kept by their problem, kind and data
    (`_drawn_once`), so that a batch worker draws each distinct figure once."""
    if figure_functions(problem).get(kind) is None:
        return None
    try:
        text = json.dumps(data, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):  # data that is not JSON (never from a grading): drawn as it is
        return _draw_now(problem, kind, data)
    if len(text) > REMEMBERED_DATA:
        return _draw_now(problem, kind, data)
    return _drawn_once(problem, kind, text)


@lru_cache(maxsize=128)
def _drawn_once(problem: Optional[str], kind: str, data: str) -> str:
    """The figure of `data` (JSON text), drawn the first time it is asked for (an exception is not kept)."""
    return _draw_now(problem, kind, json.loads(data))


def _draw_now(problem: Optional[str], kind: str, data: Dict[str, Any]) -> str:
    draw = figure_functions(problem)[kind]
    with DRAWING:  # pyplot is not thread-safe: problems graded in parallel threads draw one at a time
        try:
            return draw(data)
        except BaseException:
            plt.close("all")
            raise
