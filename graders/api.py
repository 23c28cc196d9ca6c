"""What a problem's own files may use of the grader: the one import surface of problems/<id>/.

A problem's `judges.py` and `figures.py` run in the grader (the parent) and import from here only, so the
grader's modules can change behind this surface without touching a problem (tests/test_layers.py checks it).
Its `probes.py` (or `probes/`) runs in the sandboxed child, where the grader's package does not exist: probes
import `probekit`, the child's toolkit (graders/child/probekit.py), never this module.

Judges: a judge is `fn(student, reference, options) -> Verdict` over two `ProbeOutcome`s (the student's and the
reference's run of the same probe); student data is read with `to_array` (raises `NotNumeric`) and compared with
`compare_values` or the builtin judge `allclose`; `describe_value`, `short` and `error_text` word what was found;
`parent_timed` gives a probe's timed rows the CPU time the parent read from the kernel at the child's marks.
Figures: `svg(fig)` turns a matplotlib figure into inline SVG, `thin(xs, ys)` keeps at most MAX_POINTS points of
a curve, and curves of more than MARKERS_UP_TO points are drawn without markers.
"""

from __future__ import annotations

from pathlib import Path

from . import paths
from .drawing import MARKERS_UP_TO, MAX_POINTS, svg, thin
from .judge import (
    NotNumeric,
    Verdict,
    allclose,
    compare_values,
    describe_value,
    error_text,
    parent_timed,
    short,
    to_array,
)
from .results import ProbeOutcome

__all__ = [
    # judges
    "ProbeOutcome", "Verdict", "NotNumeric", "to_array", "compare_values", "allclose", "describe_value", "short",
    "error_text", "parent_timed", "reference_dir",
    # figures
    "svg", "thin", "MAX_POINTS", "MARKERS_UP_TO",
]


def reference_dir() -> Path:
    """The reference framework's folder (`reference/`: `minitorch`, `project`, `data`), for a judge that reads
    the course's own data loaders in the parent."""
    return paths.REFERENCE
