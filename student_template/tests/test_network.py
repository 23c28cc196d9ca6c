r"""Public tests for problem `network`: `Linear` and `Network` in project/run_sentiment.py.

HW2 handout: `Linear(in_size, out_size)` computes y = x W + b with weights W of
shape (in_size, out_size) and bias b of shape (out_size,), both registered as
Parameters; `Network` maps embeddings [B, L, D] to probabilities [B]:

    mean over L → Linear(D, H) → ReLU → Dropout → Linear(H, 1) → sigmoid

Any initialisation is accepted: before checking values, the tests give every
parameter a fixed value chosen by its shape (via `named_parameters()`). The
gradient tests run backward through your `autodiff` answer: while it gets the
lecture's example wrong they are skipped, with one line saying to fix autodiff
first (the `working_autodiff` fixture of conftest.py). The hidden grading
checks more shapes, values and gradients, with the course's own backward.
"""

import random

import numpy as np
import pytest

import minitorch
from project import run_sentiment as hw

pytestmark = pytest.mark.network

RTOL, ATOL = 1e-9, 1e-12
D, H, B, L = 6, 4, 3, 5  # embedding dim, hidden dim, batch, sentence length


def show(arr):
    """A compact printout of an array for failure messages."""
    return np.array2string(np.asarray(arr), precision=4, suppress_small=True, threshold=12, max_line_width=200)


def shapes_of(module):
    """{name: shape} of the registered parameters."""
    return {name: tuple(p.value.shape) for name, p in module.named_parameters()}


def fixed_values(shapes, seed):
    """A fixed array for each shape (mixed signs, so that ReLU matters)."""
    rng = np.random.default_rng(seed)
    return {shape: rng.uniform(-1.0, 1.0, shape) for shape in shapes}


def set_parameters(module, values):
    """Give each parameter of `module` the value of its shape; return {shape: tensor}.

    The values are written into the parameters' own tensors (so a forward that kept a
    reference to them sees the new values); a non-contiguous one is replaced instead.
    """
    params = module.named_parameters()
    got = sorted(tuple(p.value.shape) for _, p in params)
    assert got == sorted(values), (
        "each Linear registers weights (in_size, out_size) and a bias (out_size,), one Linear per layer — "
        f"{type(module).__name__} has parameters of shapes {got}, expected {sorted(values)}"
    )
    tensors = {}
    for _, p in params:
        shape = tuple(p.value.shape)
        data = p.value._tensor
        if data.is_contiguous() and data._storage.size == values[shape].size:
            data._storage[:] = values[shape].reshape(-1)
            p.value.grad = None
        else:
            p.update(minitorch.tensor(values[shape], backend=hw.BACKEND))
        tensors[shape] = p.value
    return tensors


def linear_params(in_size, out_size, seed):
    return fixed_values([(in_size, out_size), (out_size,)], seed)


def network_params(seed=7):
    """W1 (D, H), b1 (H,), W2 (H, 1), b2 (1,) — all shapes distinct, so each is found by shape."""
    values = fixed_values([(D, H), (H,), (H, 1), (1,)], seed)
    values[(H,)][0] = 2.0  # at least one hidden unit is active for every input
    return values


def embeddings(seed=3):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, (B, L, D))


def reference_forward(emb, p, relu=True, mean=True):
    """What Network.forward computes (in eval mode), in NumPy; returns (out, hidden pre-activation, hidden)."""
    m = emb.mean(1) if mean else emb.sum(1)
    z1 = m @ p[(D, H)] + p[(H,)]
    h = np.maximum(z1, 0.0) if relu else z1
    z2 = h @ p[(H, 1)] + p[(1,)]
    return (1.0 / (1.0 + np.exp(-z2))).reshape(-1), z1, h


# ---------------------------------------------------------------------------
# Linear
# ---------------------------------------------------------------------------


def test_linear_parameters():
    """Linear(5, 3) registers weights (5, 3) and bias (3,) as Parameters."""
    layer = hw.Linear(5, 3)
    shapes = shapes_of(layer)
    assert shapes, (
        "Linear has no registered parameters: assign minitorch.Parameter objects to attributes "
        "(e.g. self.weights = RParam(in_size, out_size)) so that Module finds them and the optimizer trains them"
    )
    listed = sorted(shapes.values())
    assert sorted(listed) == [(3,), (5, 3)], (
        ("HW2 stores W as (in, out), so that forward is x @ W + b (no transpose): " if (3, 5) in listed else "")
        + "Linear(5, 3) needs weights (in_size, out_size) = (5, 3) and bias (out_size,) = (3,)"
        + f" — its parameters have shapes {shapes}"
    )


def test_linear_forward():
    """Linear forward is x @ W + b, for a batch of 4 rows."""
    layer = hw.Linear(5, 3)
    p = linear_params(5, 3, seed=1)
    set_parameters(layer, p)
    x = np.random.default_rng(2).uniform(-1, 1, (4, 5))
    out = layer.forward(minitorch.tensor(x, backend=hw.BACKEND)).to_numpy()
    expected = x @ p[(5, 3)] + p[(3,)]
    assert out.shape == expected.shape, (
        f"Linear forward must map [batch, in_size] to [batch, out_size] — Linear(5, 3) on a [4, 5] batch gave "
        f"shape {out.shape}, expected (4, 3)"
    )
    missing_bias = np.allclose(out, x @ p[(5, 3)], rtol=RTOL, atol=ATOL)
    assert np.allclose(out, expected, rtol=RTOL, atol=ATOL), (
        "Linear forward must compute x @ W + b" + (" (the bias is missing)" if missing_bias else "")
        + f" — got {show(out)}, expected {show(expected)}"
    )


def test_linear_gradients(working_autodiff):
    """Backward through Linear reaches W, b and x: W̄ = xᵀḡ, b̄ = Σ_rows ḡ, x̄ = ḡWᵀ."""
    layer = hw.Linear(5, 3)
    p = linear_params(5, 3, seed=4)
    params = set_parameters(layer, p)
    x_np = np.random.default_rng(5).uniform(-1, 1, (4, 5))
    g = np.random.default_rng(6).uniform(-1, 1, (4, 3))
    x = minitorch.tensor(x_np, backend=hw.BACKEND, requires_grad=True)
    layer.forward(x).backward(minitorch.tensor(g, backend=hw.BACKEND))
    expected = {"weights": x_np.T @ g, "bias": g.sum(0), "input": g @ p[(5, 3)].T}
    for name, leaf in (("weights", params[(5, 3)]), ("bias", params[(3,)]), ("input", x)):
        assert leaf.grad is not None, (
            f"no gradient reached the {name}: forward must compute with the Parameter's tensor "
            "(self.weights.value, self.bias.value), not a copy or a detached tensor"
        )
        got = leaf.grad.to_numpy()
        assert got.shape == expected[name].shape and np.allclose(got, expected[name], rtol=RTOL, atol=ATOL), (
            f"wrong gradient of the {name} (W̄ = xᵀḡ, b̄ = Σ_rows ḡ, x̄ = ḡWᵀ) — got {show(got)}, "
            f"expected {show(expected[name])}"
        )


# ---------------------------------------------------------------------------
# Network
# ---------------------------------------------------------------------------


def test_network_parameters():
    """Network(D, H) registers both layers' parameters: (D, H), (H,), (H, 1), (1,)."""
    net = hw.Network(embedding_dim=D, hidden_dim=H, dropout_prob=0.5)
    listed = sorted(shapes_of(net).values())
    expected = sorted([(D, H), (H,), (H, 1), (1,)])
    assert listed == expected, (
        "Network needs two Linear layers, Linear(embedding_dim, hidden_dim) then Linear(hidden_dim, 1), stored "
        f"as attributes so that Module registers them — Network(embedding_dim={D}, hidden_dim={H}) has "
        f"parameters of shapes {listed}, expected {expected}"
    )


def test_network_forward_eval():
    """In eval mode: sigmoid(ReLU(mean_L(x) W1 + b1) W2 + b2), one probability per sentence."""
    net = hw.Network(embedding_dim=D, hidden_dim=H, dropout_prob=0.5)
    p = network_params()
    set_parameters(net, p)
    net.eval()
    emb = embeddings()
    out = net.forward(minitorch.tensor(emb, backend=hw.BACKEND)).to_numpy()
    expected, _, _ = reference_forward(emb, p)
    assert out.shape == (B,), (
        "one probability per sentence: view the [B, 1] output of the last layer as [B] — "
        f"Network.forward on embeddings [{B}, {L}, {D}] returned shape {out.shape}, expected ({B},)"
    )
    variants = {
        "without the ReLU": reference_forward(emb, p, relu=False)[0],
        "with a sum over the sentence instead of the mean": reference_forward(emb, p, mean=False)[0],
    }
    diagnosis = next((f": it matches the network {what}" for what, v in variants.items()
                      if np.allclose(out, v, rtol=1e-6, atol=1e-9)), "")
    again = net.forward(minitorch.tensor(emb, backend=hw.BACKEND)).to_numpy()
    if not diagnosis and not np.allclose(out, again, rtol=RTOL, atol=ATOL):
        diagnosis = (": two calls in eval mode disagree — dropout must be off in eval mode "
                     "(minitorch.dropout(x, self.dropout_prob, ignore=not self.training))")
    assert np.allclose(out, expected, rtol=RTOL, atol=ATOL), (
        f"Network.forward in eval mode must compute sigmoid(ReLU(mean over L of x · W1 + b1) · W2 + b2)"
        f"{diagnosis} — got {show(out)}, expected {show(expected)}"
    )


def test_network_dropout_only_in_training_mode():
    """With dropout_prob = 0.5, training-mode outputs vary (dropout); eval-mode outputs do not."""
    net = hw.Network(embedding_dim=D, hidden_dim=H, dropout_prob=0.5)
    p = network_params()
    p[(H,)][:] = 1.5  # every hidden unit active: dropping any of them changes the output
    set_parameters(net, p)
    emb = minitorch.tensor(embeddings(), backend=hw.BACKEND)
    net.eval()
    evaluated = net.forward(emb).to_numpy()
    net.train()
    random.seed(0)  # minitorch.rand (and so dropout) draws from Python's random, as in the course
    trained = [net.forward(emb).to_numpy() for _ in range(5)]
    assert any(not np.allclose(t, evaluated, rtol=1e-6) for t in trained), (
        "apply dropout after the ReLU in training mode: minitorch.dropout(x, self.dropout_prob, "
        "ignore=not self.training) — five forwards in training mode with dropout_prob = 0.5 all equal the "
        "eval-mode output"
    )


def test_network_gradients(working_autodiff):
    """Backward from the probabilities reaches every parameter with the right values (eval mode)."""
    net = hw.Network(embedding_dim=D, hidden_dim=H, dropout_prob=0.5)
    p = network_params(seed=8)
    params = set_parameters(net, p)
    net.eval()
    emb = embeddings(seed=9)
    g = np.random.default_rng(10).uniform(-1, 1, (B,))
    out = net.forward(minitorch.tensor(emb, backend=hw.BACKEND))
    out.backward(minitorch.tensor(g, backend=hw.BACKEND))
    s, z1, h = reference_forward(emb, p)
    dz2 = (g * s * (1 - s)).reshape(B, 1)
    dz1 = (dz2 @ p[(H, 1)].T) * (z1 > 0)
    m = emb.mean(1)
    expected = {(H, 1): h.T @ dz2, (1,): dz2.sum(0), (D, H): m.T @ dz1, (H,): dz1.sum(0)}
    for shape, want in expected.items():
        leaf = params[shape]
        assert leaf.grad is not None, (
            f"no gradient reached the parameter of shape {shape}: forward must compute with the "
            "Parameters' tensors (self.weights.value), not copies"
        )
        got = leaf.grad.to_numpy()
        assert got.shape == want.shape and np.allclose(got, want, rtol=RTOL, atol=ATOL), (
            f"wrong gradient of the parameter of shape {shape}: backward must flow through sigmoid, the "
            f"second Linear, ReLU, the first Linear — got {show(got)}, expected {show(want)}"
        )
