r"""Public tests for problem `manual_backprop`: the Day-1 two-layer MLP in project/digits_mlp.py.

Lecture "Day 1: tensors and autodiff": x → Linear → ReLU → Linear → softmax → cross-entropy
(averaged over the batch), with the backward derived by hand:

    dL/dlogits = (softmax(logits) − onehot(y)) / B
    out = a W + b:  dW = aᵀ g,  db = Σ_rows g,  da = g Wᵀ
    h = ReLU(z):    dz = g · [z > 0]

The gradients are checked against central differences of your own loss, so these tests
need your forward and cross_entropy to be right too. The hidden grading checks more cases
(logits near ±1000, several sizes, the reference's values) and trains on the 8×8 digits
(test accuracy ≥ 95 % for full marks); see README.md.
"""

import numpy as np
import pytest

from project import digits_mlp as mlp

pytestmark = pytest.mark.manual_backprop

KEYS = ("W1", "b1", "W2", "b2")


def small_problem(seed=0, batch=5, d=4, hidden=6, classes=3):
    """Random params, inputs and labels; no pre-activation near the ReLU's kink."""
    rng = np.random.default_rng(seed)
    while True:
        params = {
            "W1": rng.normal(0.0, 0.8, (d, hidden)),
            "b1": rng.normal(0.0, 0.3, hidden),
            "W2": rng.normal(0.0, 0.8, (hidden, classes)),
            "b2": rng.normal(0.0, 0.3, classes),
        }
        x = rng.uniform(-1.0, 1.0, (batch, d))
        if np.min(np.abs(x @ params["W1"] + params["b1"])) > 0.01:
            return params, x, rng.integers(0, classes, batch)


def loss_of(params, x, y):
    logits, _ = mlp.forward(params, x)
    return float(mlp.cross_entropy(logits, y))


def gradients(params, x, y):
    _, cache = mlp.forward(params, x)
    return mlp.backward(params, cache, y)


def test_softmax_values():
    z = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    p = np.asarray(mlp.softmax(z))
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(p[0], e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(p[1], [1 / 3, 1 / 3, 1 / 3], rtol=1e-12)


def test_softmax_large_logits_do_not_overflow():
    """Adding a constant to a row does not change its softmax: subtract the row's max before exp."""
    z = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    with np.errstate(all="ignore"):
        big = np.asarray(mlp.softmax(z + 1000.0))
    assert np.all(np.isfinite(big)), f"softmax(z + 1000) = {big}: exp(1000) overflowed"
    np.testing.assert_allclose(big, mlp.softmax(z), rtol=1e-12)


def test_softmax_rows_of_different_scales():
    """Each row is shifted by its OWN maximum."""
    z = np.array([[0.0, 1.0], [1000.0, 1001.0], [-1000.0, -999.0]])
    with np.errstate(all="ignore"):
        p = np.asarray(mlp.softmax(z))
    np.testing.assert_allclose(p, np.tile(mlp.softmax(np.array([[0.0, 1.0]])), (3, 1)), rtol=1e-12)


def test_log_softmax_values():
    z = np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]])
    np.testing.assert_allclose(mlp.log_softmax(z), np.log(mlp.softmax(z)), rtol=1e-12)


def test_log_softmax_confident_logits_stay_finite():
    """e^-1000 underflows to 0, but its log is simply -1000: never take the log of a softmax."""
    with np.errstate(all="ignore"):
        logp = np.asarray(mlp.log_softmax(np.array([[0.0, -1000.0]])))
    assert np.all(np.isfinite(logp)), f"log_softmax([0, -1000]) = {logp}: log(0) = -inf"
    np.testing.assert_allclose(logp, [[0.0, -1000.0]], atol=1e-9)


def test_cross_entropy_values():
    logits = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]])
    y = np.array([1, 0])
    want = (np.log(4.0) + (np.log(np.exp(2.0) + 3.0) - 2.0)) / 2
    assert float(mlp.cross_entropy(logits, y)) == pytest.approx(want, rel=1e-12)


def test_cross_entropy_confident_and_wrong_is_finite():
    with np.errstate(all="ignore"):
        loss = float(mlp.cross_entropy(np.array([[0.0, -1000.0]]), np.array([1])))
    assert loss == pytest.approx(1000.0, rel=1e-9), "the loss of a confident wrong guess is about 1000, not inf"


def test_cross_entropy_is_a_batch_mean():
    """Every example twice: the same mean."""
    rng = np.random.default_rng(1)
    logits, y = rng.normal(size=(4, 5)), np.array([0, 3, 1, 4])
    once = float(mlp.cross_entropy(logits, y))
    twice = float(mlp.cross_entropy(np.concatenate([logits, logits]), np.concatenate([y, y])))
    assert twice == pytest.approx(once, rel=1e-12)


def test_forward_values():
    params, x, _ = small_problem(2)
    logits, _ = mlp.forward(params, x)
    want = np.maximum(x @ params["W1"] + params["b1"], 0.0) @ params["W2"] + params["b2"]
    np.testing.assert_allclose(logits, want, rtol=1e-12)


@pytest.mark.parametrize("key", KEYS)
def test_backward_matches_central_differences(key):
    params, x, y = small_problem(3)
    grads = gradients(params, x, y)
    assert set(KEYS) <= set(grads), f"backward must return a dict with {KEYS}"
    got = np.asarray(grads[key])
    assert got.shape == params[key].shape, f"d{key} has shape {got.shape}, expected {params[key].shape}"
    h = 1e-6
    want = np.zeros_like(params[key])
    for index in np.ndindex(params[key].shape):
        plus = {k: v.copy() for k, v in params.items()}
        minus = {k: v.copy() for k, v in params.items()}
        plus[key][index] += h
        minus[key][index] -= h
        want[index] = (loss_of(plus, x, y) - loss_of(minus, x, y)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)


def test_gradient_is_a_batch_mean():
    """Duplicating every example leaves the gradient unchanged: dL/dlogits = (softmax − onehot) / B."""
    params, x, y = small_problem(4)
    once = gradients(params, x, y)
    twice = gradients(params, np.concatenate([x, x]), np.concatenate([y, y]))
    for key in KEYS:
        np.testing.assert_allclose(twice[key], once[key], rtol=1e-10, err_msg=f"d{key} changed")


def test_sgd_step():
    params, _, _ = small_problem(5)
    rng = np.random.default_rng(6)
    grads = {k: rng.normal(size=v.shape) for k, v in params.items()}
    want = {k: params[k] - 0.3 * grads[k] for k in KEYS}
    new = mlp.sgd_step({k: v.copy() for k, v in params.items()}, grads, 0.3)
    for key in KEYS:
        np.testing.assert_allclose(new[key], want[key], rtol=1e-12)


def test_training_learns_separable_blobs():
    """The given `train` with your functions: the loss falls and three blobs are told apart."""
    rng = np.random.default_rng(7)
    centres = rng.uniform(0.0, 1.0, (3, 8))
    y = np.repeat(np.arange(3), 60)
    x = centres[y] + rng.normal(0.0, 0.08, (180, 8))
    params, losses = mlp.train(x, y, hidden=16, lr=0.5, epochs=40, batch_size=16, seed=0)
    assert losses[-1] < 0.5 * losses[0], f"the training loss went from {losses[0]:.3f} to {losses[-1]:.3f}"
    assert mlp.accuracy(params, x, y) >= 0.95
