"""The network and training judges' rules on hand-made probe data (fast, one rule per test).

Whole submissions written the way the course's starters are (spring 2026, fall 2025, spring 2025 and
spring 2024 layouts) are cases of their problems, `problems/{network,training}/{valid,buggy}/course_*.py`,
graded with their exact verdicts in test_problem_cases.py; a check a case's literals cannot say is here.

Under the course's semantics (optimizers replace each parameter's value; unscaled dropout with
`ignore`), a loop without `optim.zero_grad()` is correct; leftover gradients are only those that
reach a step (two backward passes per step, a backward pass on the validation loss).
"""

import numpy as np
import pytest

from cases import case_named, graded
from graders.baseline import problem_hooks
from graders.judge import judge_outcome
from graders.results import ProbeOutcome
from graders.spec import load_problems


@pytest.mark.parametrize("case", ["training/buggy/course_whole_set", "training/buggy/course_suffix_slice"])
def test_whole_set_every_batch_is_stopped_early(case):
    """It used to time out after 60 s ("infinite loop or sleep?"); now it is stopped at its third batch
    (the cases' MESSAGES check what it is told)."""
    problem = graded(case_named(case))
    assert not any("timed out" in note for note in problem.notes), problem.notes
    assert {t.id: t for t in problem.tests}["accuracy"].seconds < 20


# ---------------------------------------------------------------------------
# The judges' rules on hand-made probe data
# ---------------------------------------------------------------------------


def _judges(problem_id):
    (spec,) = load_problems(only=[problem_id])
    return spec, problem_hooks(spec)


def _verdict(problem_id, test_id, student_value, reference_value):
    spec, hooks = _judges(problem_id)
    (test,) = [t for t in spec.tests if t.id == test_id]
    fn = hooks.JUDGES[test.judge]
    student = ProbeOutcome(test.probe, "ok", value=student_value)
    reference = ProbeOutcome(test.probe, "ok", value=reference_value)
    return judge_outcome(fn, student, reference, test.options, spec.swap.file)


# --- the loss: an eps up to 1e-7 inside the logs passes, real BCE bugs do not

def _bce_cases():
    """The probe's inputs (probes.py: seed 3, p in [0.05, 0.95], batches of 1, 4, 9), plus the range's extremes."""
    rng = np.random.default_rng(3)
    cases = []
    for batch in (1, 4, 9):
        p = rng.uniform(0.05, 0.95, (batch,))
        cases.append((p, rng.integers(0, 2, (batch,)).astype(float)))
    cases.append((np.array([0.95, 0.05, 0.05, 0.95]), np.array([1.0, 0.0, 1.0, 0.0])))
    cases.append((np.array([0.95]), np.array([1.0])))  # the smallest loss: the worst relative error of an eps
    return cases


def _log_softmax(v):
    return v - np.log(np.sum(np.exp(v)))


def _bce(p, y, eps_p=0.0, eps_q=0.0):
    """(loss, dloss/dp) of the mean BCE with optional eps inside log(p + eps_p) and log(1 - p + eps_q)."""
    loss = -np.mean(y * np.log(p + eps_p) + (1 - y) * np.log(1 - p + eps_q))
    grad = -(y / (p + eps_p) - (1 - y) / (1 - p + eps_q)) / len(p)
    return loss, grad


VARIANTS = {
    "eps 1e-9 in both logs": lambda p, y: _bce(p, y, 1e-9, 1e-9),
    "eps 1e-7 in both logs": lambda p, y: _bce(p, y, 1e-7, 1e-7),
    "eps 1e-7 in log(p) only": lambda p, y: _bce(p, y, 1e-7, 0.0),
    "eps 1e-7 in log(1 - p) only": lambda p, y: _bce(p, y, 0.0, 1e-7),
}

BUGS = {
    "sum instead of mean": lambda p, y: tuple(v * len(p) for v in _bce(p, y)),
    "sign flipped": lambda p, y: tuple(-v for v in _bce(p, y)),
    "y and 1 - y swapped": lambda p, y: _bce(p, 1 - y),
    "(1 - y) log(1 - p) missing": lambda p, y: (-np.mean(y * np.log(p)), -(y / p) / len(p)),
    "y log p missing": lambda p, y: (-np.mean((1 - y) * np.log(1 - p)), ((1 - y) / (1 - p)) / len(p)),
    "log-softmax over the batch": lambda p, y: (-np.mean(y * _log_softmax(p) + (1 - y) * _log_softmax(1 - p)),
                                                _bce(p, y)[1]),
    "eps 1e-3 in the logs": lambda p, y: _bce(p, y, 1e-3, 1e-3),
}


def _bce_value(fn):
    return [{"loss": float(loss), "grad": np.asarray(grad, dtype=float).tolist(), "p": list(p), "y": list(y)}
            for (loss, grad), (p, y) in ((fn(p, y), (p, y)) for p, y in _bce_cases())]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_stabilising_eps_up_to_1e_7_passes(variant):
    verdict = _verdict("training", "bce_values", _bce_value(VARIANTS[variant]), _bce_value(_bce))
    assert verdict.passed, verdict.message


#: the one BCE slip with a catalogue entry: the fall-2025 starter's hint ("log softmax") read literally
BUG_LABELS = {"log-softmax over the batch": "bce-logsoftmax"}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_real_bce_bugs_fail_with_only_the_label_they_show(bug):
    verdict = _verdict("training", "bce_values", _bce_value(BUGS[bug]), _bce_value(_bce))
    assert not verdict.passed and verdict.misconception == BUG_LABELS.get(bug), verdict.message


def _loop_losses(fn):
    """The loop probe's record of 3 steps whose backpropagated loss is fn(out, y)[0]."""
    steps = [{"loss": float(fn(p, y)[0]), "out": list(p), "y": list(y)} for p, y in _bce_cases()]
    return {"plain": {"losses": steps}}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_an_inline_loss_with_eps_passes_the_loop_loss_test(variant):
    assert _verdict("training", "loop_loss", _loop_losses(VARIANTS[variant]), _loop_losses(_bce)).passed


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_an_inline_loss_bug_fails_the_loop_loss_test(bug):
    verdict = _verdict("training", "loop_loss", _loop_losses(BUGS[bug]), _loop_losses(_bce))
    assert not verdict.passed, verdict.message
    assert verdict.misconception == BUG_LABELS.get(bug), verdict.message


def test_a_loop_that_backpropagates_nothing_from_a_batch_fails_the_loop_loss_test():
    verdict = _verdict("training", "loop_loss", {"plain": {"losses": []}}, _loop_losses(_bce))
    assert not verdict.passed and "no loss" in verdict.message


def test_bce_messages_name_the_slip_they_see():
    reference = _bce_value(_bce)
    assert "SUM over the batch" in _verdict("training", "bce_values", _bce_value(BUGS["sum instead of mean"]), reference).message
    assert "sign is flipped" in _verdict("training", "bce_values", _bce_value(BUGS["sign flipped"]), reference).message
    assert "log-softmax" in _verdict("training", "bce_values", _bce_value(BUGS["log-softmax over the batch"]), reference).message


def test_the_loss_tolerance_follows_from_the_maths():
    """eps <= 1e-7, p in [0.05, 0.95]: loss error <= eps / 0.05 <= 2e-6 against a loss >= -log(0.95)."""
    spec, hooks = _judges("training")
    (test,) = [t for t in spec.tests if t.id == "bce_values"]
    bound_loss = (1e-7 / 0.05) / -np.log(0.95)
    bound_grad = 1e-7 / (0.05 + 1e-7)
    assert bound_loss < test.options["loss_rtol"] < 1e-2 and bound_grad < test.options["grad_rtol"] < 1e-2
    assert (hooks.LOSS_RTOL, hooks.GRAD_RTOL) == (test.options["loss_rtol"], test.options["grad_rtol"])


# --- gradients at each optimizer step

STEP = {"with_grad": 4, "passes": 1}


def _run(steps, backward_calls=None, error=None):
    return {"backward_calls": len(steps) if backward_calls is None else backward_calls, "steps": steps,
            "trained": [], "error": error}


def _loop(plain, validation):
    return {"examples": 48, "batch_size": 16, "epochs": 2, "plain": plain, "validation": validation}


REFERENCE_LOOP = _loop(_run([STEP] * 6), _run([STEP] * 6))


def _cleared(plain, validation=None):
    return _verdict("training", "zero_grad", _loop(plain, validation or _run([STEP] * 6)), REFERENCE_LOOP)


def test_one_backward_per_step_passes_whatever_zero_grad_does():
    assert _cleared(_run([STEP] * 6)).passed
    # a backward pass on a graph whose parameters were already replaced reaches no step
    assert _cleared(_run([STEP] * 6, backward_calls=12)).passed


def test_two_backward_passes_before_a_step_are_no_zero_grad():
    verdict = _cleared(_run([{"with_grad": 4, "passes": 2}] * 6, backward_calls=12))
    assert not verdict.passed and verdict.misconception == "no-zero-grad"
    assert "step 1" in verdict.message and "2 backward passes" in verdict.message


def test_a_validation_backward_that_reaches_the_next_step_is_no_zero_grad():
    steps = [STEP] * 3 + [{"with_grad": 4, "passes": 2}] + [STEP] * 2
    verdict = _cleared(_run([STEP] * 6), _run(steps, backward_calls=8))
    assert not verdict.passed and verdict.misconception == "no-zero-grad" and "validation" in verdict.message


def test_a_crash_in_validation_is_left_to_the_eval_mode_test():
    crashed = _run([{"with_grad": 4, "passes": 5}], error={"type": "TypeError", "message": "x", "line": 3})
    assert _cleared(_run([STEP] * 6), crashed).passed


def test_other_step_faults_fail_without_a_label():
    for plain, words in (
        (_run([{"with_grad": 0, "passes": 0}] * 6), "no gradient"),
        (_run([STEP] * 3), "3 optimizer steps for 6 batches"),
        (_run([], backward_calls=6), "never called the optimizer's step()"),
        (_run([], backward_calls=0), "never called loss.backward()"),
    ):
        verdict = _cleared(plain)
        assert not verdict.passed and verdict.misconception is None and words in verdict.message, verdict.message


# --- minibatches

def _trained(*batches, training=True):
    return [[training, list(rows)] for rows in batches]


def _minibatches(trained):
    plain = dict(_run([STEP] * 6), trained=trained)
    return _verdict("training", "minibatches", _loop(plain, _run([STEP] * 6)), REFERENCE_LOOP)


IN_ORDER = [range(16), range(16, 32), range(32, 48)] * 2


def test_batches_in_order_or_shuffled_pass():
    assert _minibatches(_trained(*IN_ORDER)).passed
    order = np.random.default_rng(0).permutation(48)
    shuffled = [order[i : i + 16].tolist() for i in (0, 16, 32)] + [order[::-1][i : i + 16].tolist() for i in (0, 16, 32)]
    assert _minibatches(_trained(*shuffled)).passed


def test_the_whole_set_as_every_batch_is_named():
    whole = _minibatches(_trained(*[range(48)] * 6))
    assert whole.misconception == "whole-set-every-batch" and "whole training set" in whole.message
    suffix = _minibatches(_trained(*[range(48), range(16, 48), range(32, 48)] * 2))
    assert suffix.misconception == "whole-set-every-batch" and "X_train[example_num:]" in suffix.message


def test_other_batch_faults_fail_without_a_label():
    for trained, words in (
        (_trained(*[range(i, i + 15) for i in (0, 16, 32)] * 2), "in 0 batches over 2 epochs (3 of 48"),  # an off-by-one slice
        (_trained(*IN_ORDER[:3], range(48)), "a training batch of 48 examples"),  # epoch 2: one full batch
        (_trained(*IN_ORDER[:5]), "example 32 was in 1 batch over 2 epochs"),  # the last batch never trained
        (_trained(*IN_ORDER[:5], [-1, -2, -3]), "not training examples"),
        (_trained(*IN_ORDER, training=False), "no forward pass in training mode"),
    ):
        verdict = _minibatches(trained)
        assert not verdict.passed and verdict.misconception is None and words in verdict.message, verdict.message


def test_accuracy_names_a_stopped_whole_set_run():
    spec, hooks = _judges("training")
    (test,) = [t for t in spec.tests if t.id == "accuracy"]
    reference = ProbeOutcome("accuracy", "ok", value={"probabilities": [0.9] * 600, "losses": []})
    stopped = ProbeOutcome("accuracy", "ok", value={"whole_set": {"rows": 2400, "batch_size": 32, "examples": 2400}})
    verdict = judge_outcome(hooks.JUDGES[test.judge], stopped, reference, test.options, spec.swap.file)
    assert not verdict.passed and verdict.misconception == "whole-set-every-batch"


# --- dropout in evaluation mode, in the network problem

def test_the_dropout_mode_check_names_dropout_in_eval_only_for_random_eval_outputs():
    train = [[0.1, 0.2], [0.3, 0.2], [0.1, 0.5]]
    reference = {"train": train, "eval": [[0.2, 0.3]] * 3}
    on_in_eval = _verdict("network", "network_dropout", {"train": train, "eval": train}, reference)
    assert not on_in_eval.passed and on_in_eval.misconception == "dropout-in-eval"
    never_on = _verdict("network", "network_dropout", {"train": [[0.2, 0.3]] * 3, "eval": [[0.2, 0.3]] * 3}, reference)
    assert not never_on.passed and never_on.misconception is None
    assert _verdict("network", "network_dropout", reference, reference).passed
    # a [B, 1] output (a bug of its own, for the value tests) does not hide dropout left on in eval mode
    column = [[[v] for v in row] for row in train]
    in_columns = _verdict("network", "network_dropout", {"train": column, "eval": column}, reference)
    assert not in_columns.passed and in_columns.misconception == "dropout-in-eval"
