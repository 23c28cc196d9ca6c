"""Bounded results (issue 10, hole 10): whatever a submission's code makes the probes record, the data
sent to the grader, the report, results.json and the gradebook row stay small, and judgement is unchanged.

The attack (tests/files/hostile/results_log_flood.py) wraps the reference training loop so that it calls
log_fn 1,000,000 extra times: before, the accuracy probe sent every loss and the report drew them all
(a 107 MB report.html). Calling log_fn more often than once per epoch only changes the logging, so it is
not graded: the loop keeps full marks and its message says how often log_fn was called.

The child-side caps (probes) are also checked on their own, in a subprocess that imports the probe
modules as the sandbox does; the parent-side ones (judges, figures) on hand-made data as large as a
result line may carry.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import hostile_kit as k
from graders.baseline import problem_hooks
from graders.figures import figure_svg
from graders.gradebook import result_to_json
from graders.judge import judge_outcome
from graders.record import results_json
from graders.results import ProbeOutcome
from graders.spec import load_problems
from reports.render import AFTER_DUE, render_submission

TRAINING = k.FILES["training"]
FLOOD = 1_000_000
MB = 1 << 20


@pytest.fixture(scope="module")
def flooded(tmp_path_factory):
    """The reference loop with the log_fn flood, graded once (training only)."""
    text = k.compose(k.source("reference", TRAINING), TRAINING, "results_log_flood", when="import", calls=FLOOD)
    path = k.build(tmp_path_factory.mktemp("flood") / "sub", {TRAINING: text})
    return k.grade(path, ["training"])


def _accuracy_test(result):
    (test,) = [t for t in k.problem(result, "training").tests if t.id == "accuracy"]
    return test


def test_a_flooded_correct_loop_keeps_its_marks_and_is_told_how_often_it_logged(flooded):
    k.assert_normal(flooded, "training")
    test = _accuracy_test(flooded)
    # the reference loop's epochs (Adam: 6 at most; the grader stops its training once past the target, after 3
    # of them) plus the flood
    assert test.figure["log_calls"] == FLOOD + 3, test.figure["log_calls"]
    assert f"log_fn was called {FLOOD + 3:,} times before training was stopped" in test.message, test.message
    assert f"measured at log_fn's call {FLOOD + 3:,}, where it had passed the target" in test.message, test.message
    assert all(len(t.message) < 600 for t in k.problem(flooded, "training").tests)


def test_the_flood_reaches_the_report_and_the_gradebook_as_a_bounded_sample(flooded):
    report = render_submission(flooded, shown=AFTER_DUE).encode("utf-8")  # the accuracy test: after the due date
    assert len(report) <= 5 * MB, len(report)
    assert len(json.dumps(results_json(flooded)).encode("utf-8")) <= 1 * MB
    assert len(result_to_json(flooded).encode("utf-8")) <= 1 * MB  # the gradebook's stored row
    assert f"log_fn called {FLOOD + 3:,} times" in report.decode("utf-8")
    figure = _accuracy_test(flooded).figure
    assert figure["log_calls"] == FLOOD + 3
    assert 100 < len(figure["losses"]) <= 2001 and len(figure["calls"]) == len(figure["losses"])
    assert figure["calls"][0] == 1 and figure["calls"][-1] == FLOOD + 3  # the whole run, evenly sampled


# ---------------------------------------------------------------- the probes' caps, in the child's setting

PROBE_CAPS = textwrap.dedent(
    """
    import importlib.util, itertools, json, sys
    sys.path[:0] = [{reference!r}, {child!r}]

    def load(name, path, package=False):
        where = [path.rsplit("/", 1)[0]] if package else None
        spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=where)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    import minitorch
    training = load("training_probes", {problems!r} + "/training/probes.py")
    network = load("network_probes", {problems!r} + "/network/probes.py")
    autodiff = load("autodiff_probes", {problems!r} + "/autodiff/probes/__init__.py", package=True)
    out = {{}}

    losses = training.Thinned(training.MAX_LOSS_POINTS)
    for i in range(1, 1_000_001):
        losses.add(float(i))
    out["thinned"] = losses.points()
    few = training.Thinned(training.MAX_LOSS_POINTS)
    for i in range(1, 7):
        few.add(float(i))
    out["few"] = few.points()
    out["modes"] = training.mode_lists([(True, False)] * 50_000 + [(False, True)] * 50_000 + [(True, 1)])

    out["big_values"] = network.values(minitorch.zeros((300, 300)))
    out["small_values"] = network.values(minitorch.zeros((2, 3)))

    class Many(minitorch.Module):
        def __init__(self):
            super().__init__()
            for i in range(500):
                setattr(self, f"p{{i}}", minitorch.Parameter(minitorch.zeros((1,))))

    out["shapes"] = network.shape_record(Many())

    import numpy as np
    X = np.arange(4 * 3 * 2, dtype=float).reshape(4, 3, 2) / 7
    sentences = training.course_lists(X)
    kinds = [type(sentences), type(sentences[0]), type(sentences[0][0]), type(sentences[0][0][0])]
    out["word_type"] = kinds[2] is list
    out["course_lists"] = {{
        "lists": sentences == X.tolist() and all(issubclass(t, list) for t in kinds[:3]) and kinds[3] is float,
        "as_arrays": [np.array(sentences[1:3]).tolist() == X[1:3].tolist(), str(np.array(sentences[:2]).dtype),
                      str(np.array(sentences[:2], dtype=np.float32).dtype), minitorch.tensor(sentences[:2]).shape],
    }}
    sentences[0][1][0] = 100.0  # a word changed in place
    sentences[1][2] = [5.0, 6.0]  # a word replaced
    sentences[3][0].reverse()  # a word reordered in place
    list.__setitem__(sentences[2][1], 0, 7.0)  # a word changed past any method a subclass could watch
    plain = json.loads(json.dumps(sentences))
    out["course_lists"]["changed"] = [np.array(s).tolist() == np.array(p).tolist() for s, p in zip(sentences, plain)]
    out["course_lists"]["tensor"] = minitorch.tensor(sentences[:2]).to_numpy().tolist() == np.array(plain[:2]).tolist()
    sentences[2].append([0.0, 0.0])  # a sentence grown
    try:
        np.array(sentences[1:3])
        out["course_lists"]["ragged"] = "no error"
    except ValueError as exc:
        out["course_lists"]["ragged"] = type(exc).__name__

    def endless(variable):
        while True:
            yield variable
    autodiff.autodiff.topological_sort = endless
    out["order"] = len(autodiff.topo_scalars(None)["order"])
    out["nodes"] = len(autodiff.topo_scalars(None)["edges"])
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def probe_caps():
    script = PROBE_CAPS.format(reference=str(k.REFERENCE), child=str(k.ROOT / "graders" / "child"),
                               problems=str(k.ROOT / "problems"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=k.ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_the_loss_curve_is_an_even_sample_with_the_last_call_and_whole_when_short(probe_caps):
    points = probe_caps["thinned"]
    assert len(points) <= 2001 and points[0] == [1, 1.0] and points[-1] == [1_000_000, 1_000_000.0]
    gaps = {b[0] - a[0] for a, b in zip(points, points[1:-1])}
    assert len(gaps) == 1  # evenly spaced
    assert probe_caps["few"] == [[i, float(i)] for i in range(1, 7)]


def test_mode_lists_are_bounded_but_keep_every_mode_seen(probe_caps):
    modes = probe_caps["modes"]
    assert len(modes["validation"]) <= 1001 and len(modes["training"]) <= 1001
    assert set(map(str, modes["validation"])) == {"False", "None"} and set(modes["training"]) == {True}


def test_network_probes_describe_huge_tensors_and_cap_parameter_lists(probe_caps):
    assert isinstance(probe_caps["big_values"], str) and "90000 values" in probe_caps["big_values"]
    assert probe_caps["small_values"] == [[0.0] * 3] * 2
    assert probe_caps["shapes"]["count"] == 500 and len(probe_caps["shapes"]["shapes"]) == 64


def test_the_training_data_are_the_courses_lists_and_a_change_to_them_is_never_stale(probe_caps):
    """The loop receives nested lists of floats (the course's format); NumPy takes a sentence's array whole (no
    parsing of its floats) only while neither the sentence nor one of its words has changed: a word changed in place
    (by its methods or past them), replaced or reordered reads as the plain lists would, and a grown sentence is
    ragged as plain lists are."""
    data = probe_caps["course_lists"]
    assert data["lists"] is True and probe_caps["word_type"] is True
    assert data["as_arrays"] == [True, "float64", "float32", [2, 3, 2]]
    assert data["changed"] == [True] * 4 and data["tensor"] is True
    assert data["ragged"] == "ValueError"


def test_an_endless_topological_sort_is_cut_after_one_node_too_many(probe_caps):
    assert probe_caps["order"] == probe_caps["nodes"] + 1


# ---------------------------------------------------------------- the parent's caps, on hand-made data


def _verdict(test_id, student_value, reference_value):
    (spec,) = load_problems(only=["training"])
    (test,) = [t for t in spec.tests if t.id == test_id]
    fn = problem_hooks(spec).JUDGES[test.judge]
    outcome = lambda v: ProbeOutcome(test.probe, "ok", value=v)  # noqa: E731
    return judge_outcome(fn, outcome(student_value), outcome(reference_value), test.options, spec.swap.file)


def test_a_forged_loss_list_of_millions_is_thinned_by_the_judge_and_the_figure():
    reference = {"probabilities": [0.9] * 600, "losses": [0.6, 0.5]}
    forged = {"probabilities": [0.9] * 600, "losses": [0.5] * 3_000_000, "log_calls": 3_000_000}
    verdict = _verdict("accuracy", forged, reference)
    assert len(verdict.figure["losses"]) <= 2000 and verdict.figure["log_calls"] == 3_000_000
    assert len(verdict.message) < 600
    svg = figure_svg("training", {"kind": "training", "losses": [0.5] * 1_000_000, "accuracy": 0.8}, "training")
    assert svg is not None and len(svg) < 200_000  # the whole curve drawn: about 30 MB


STEP = {"with_grad": 4, "passes": 1}
PLAIN = {"backward_calls": 6, "steps": [STEP] * 6, "trained": [[True, list(range(i, i + 16))] for i in (0, 16, 32)] * 2}
LOOP = {"examples": 48, "batch_size": 16, "epochs": 2, "plain": PLAIN, "validation": PLAIN}


def test_counts_beyond_the_kept_steps_and_forwards_are_judged():
    many_steps = dict(PLAIN, steps=[STEP] * 1000, step_count=250_000)
    verdict = _verdict("zero_grad", dict(LOOP, plain=many_steps), LOOP)
    assert not verdict.passed and "250,000 optimizer steps for 6 batches" in verdict.message
    many_forwards = dict(PLAIN, trained=PLAIN["trained"] + [[True, []]] * 994, trained_count=90_000)
    verdict = _verdict("minibatches", dict(LOOP, plain=many_forwards), LOOP)
    assert not verdict.passed and "90,000 forward passes" in verdict.message
    # the probe's [training, rows, size] entries judge like [training, rows]
    sized = dict(PLAIN, trained=[[t, rows, len(rows)] for t, rows in PLAIN["trained"]], trained_count=6)
    assert _verdict("minibatches", dict(LOOP, plain=sized), LOOP).passed
    cut = dict(PLAIN, trained=[[True, list(range(256)), 4000]] * 6)
    verdict = _verdict("minibatches", dict(LOOP, plain=cut), LOOP)
    assert verdict.misconception == "whole-set-every-batch" and "4000" in verdict.message
