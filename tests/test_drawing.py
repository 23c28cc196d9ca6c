"""graders.drawing: what a report's log-log figures label, as the SVG text a browser shows."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt

import graders.figures  # noqa: F401  (sets matplotlib up as grading does: Agg, SVG text kept as text)
from graders.drawing import svg


def _labels(xs, ys) -> list:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(xs, ys, "o-")
    ax.set_xscale("log")
    ax.set_yscale("log")
    text = svg(fig)
    return re.findall(r">([^<>]+)</text>", text)


def test_a_log_axis_over_decades_is_labelled_at_1_2_5_in_plain_numbers():
    labels = _labels([7, 13, 25, 49, 97, 193], [14, 26, 50, 98, 194, 386])
    assert {"10", "20", "50", "100"} <= set(labels), labels
    assert not any("$" in label or "^" in label for label in labels), labels
    assert not any(label in ("3", "4", "6", "7", "8", "9") for label in labels), labels  # no minor tick labels


def test_an_axis_too_short_for_two_such_ticks_is_still_labelled():
    labels = _labels([4000, 8000, 16000], [0.0304, 0.0308, 0.0316])
    numbers = [float(label) for label in labels if re.fullmatch(r"[0-9.e+-]+", label)]
    short = {n for n in numbers if 0.03 <= n <= 0.032}
    assert len(short) >= 2, labels  # two different values, not one label repeated
