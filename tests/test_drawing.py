"""graders.drawing: what a report's log-log figures label, as the SVG text a browser shows."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import pytest

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


@pytest.fixture
def figures():
    """graders.figures with no figure remembered, before and after (a test's stand-in drawings stay its own)."""
    from graders import figures

    figures._drawn_once.cache_clear()
    yield figures
    figures._drawn_once.cache_clear()


def _time_figure(seconds: float) -> dict:
    rows = [{"nodes": n, "seconds": seconds * n / 4000} for n in (4000, 8000, 16000)]
    return {"kind": "time", "student": rows, "reference": rows}


def test_a_figure_is_drawn_once_per_data_and_the_same_data_gives_the_same_svg(figures, monkeypatch):
    """A batch worker draws each distinct figure once: the same problem, kind and data give the SVG drawn first
    (byte for byte what a fresh drawing gives: no date, ids from the content); other data is drawn anew."""
    calls = []
    draw = figures.figure_functions("autodiff")["time"]
    monkeypatch.setitem(figures.figure_functions("autodiff"), "time", lambda data: calls.append(data) or draw(data))
    first = figures.figure_svg("time", _time_figure(0.01), "autodiff")
    again = figures.figure_svg("time", _time_figure(0.01), "autodiff")
    other = figures.figure_svg("time", _time_figure(0.02), "autodiff")
    assert len(calls) == 2 and first == again != other
    assert first == figures._draw_now("autodiff", "time", _time_figure(0.01))  # a fresh drawing: the same text
    assert "<dc:date>" not in first


def test_a_figure_that_failed_is_drawn_again_and_huge_data_is_never_kept(figures, monkeypatch):
    calls = []

    def flaky(data):
        calls.append(len(data["losses"]))
        if len(calls) == 1:
            raise RuntimeError("a failure of the moment")
        return "<svg/>"

    monkeypatch.setitem(figures.figure_functions("training"), "training", flaky)
    small = {"kind": "training", "losses": [0.5, 0.25]}
    with pytest.raises(RuntimeError):
        figures.figure_svg("training", small, "training")
    assert figures.figure_svg("training", small, "training") == "<svg/>" and calls == [2, 2]
    huge = {"kind": "training", "losses": [0.5] * (figures.REMEMBERED_DATA // 4)}
    figures.figure_svg("training", huge, "training")
    figures.figure_svg("training", huge, "training")
    assert len(calls) == 4 and figures._drawn_once.cache_info().currsize == 1


def test_the_training_figure_labels_whole_epochs_only():
    """Three epochs (a training the grader stopped once past the target) are ticked 1, 2, 3, never 1.25."""
    from graders.figures import figure_svg

    text = figure_svg("training", {"kind": "training", "losses": [0.69, 0.66, 0.59], "accuracy": 0.763,
                                   "target": 0.75}, "training")
    labels = re.findall(r">([^<>]+)</text>", text)
    assert {"1", "2", "3"} <= set(labels), labels
    between = [label for label in labels if re.fullmatch(r"\d+\.\d+", label) and 1 < float(label) < 3]
    assert between == [], labels  # (the loss and accuracy axes' labels are all at most 1)
