"""minitorch.module / nn / optim against PyTorch in float64.

Covers Module/Parameter registration (names, order, train/eval recursion),
nn.Linear, nn.Embedding, dropout (the course's unscaled `x * (rate < r)`: its
masks replayed in torch and the statistics of random ones), the losses (binary
cross-entropy, cross-entropy from logits), softmax/logsoftmax, and SGD/Adam
trajectories compared step by step over 25+ steps with torch.optim.SGD and with
the course's Adam written out in torch (`CourseAdam`). Every comparison is a float array check with
explicit tolerances; each test names the plausible bug it is there to catch.
"""

import math
import random
from typing import Dict, List, Tuple

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import minitorch
from minitorch import Parameter, Tensor, nn

RTOL, ATOL = 1e-12, 1e-13
BACKENDS = pytest.mark.parametrize(
    "backend", [minitorch.FastBackend, minitorch.SimpleBackend], ids=["numpy", "python"]
)


def mt(arr, backend=minitorch.FastBackend, requires_grad=False) -> Tensor:
    return minitorch.tensor(np.asarray(arr, dtype=np.float64), backend=backend, requires_grad=requires_grad)


def tt(arr, requires_grad=False) -> torch.Tensor:
    return torch.tensor(np.asarray(arr, dtype=np.float64), dtype=torch.float64, requires_grad=requires_grad)


def close(got, expected, rtol=RTOL, atol=ATOL, msg=""):
    got = np.asarray(got.to_numpy() if isinstance(got, Tensor) else got, dtype=np.float64)
    expected = np.asarray(
        expected.detach().numpy() if isinstance(expected, torch.Tensor) else expected, dtype=np.float64
    )
    assert got.shape == expected.shape, f"{msg}: shape {got.shape} != {expected.shape}"
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=msg)


# ---------------------------------------------------------------------------
# Module / Parameter
# ---------------------------------------------------------------------------


class Leaf(minitorch.Module):
    def __init__(self, shape):
        super().__init__()
        self.w = Parameter(mt(np.random.normal(size=shape)))
        self.not_a_param = 3.0
        self.b = Parameter(mt(np.random.normal(size=shape[-1:])))


class Mid(minitorch.Module):
    def __init__(self):
        super().__init__()
        self.scale = Parameter(mt([1.5]))
        self.left = Leaf((2, 3))
        self.right = Leaf((3, 1))
        self.drop = nn.Dropout(0.25)


class Top(minitorch.Module):
    def __init__(self):
        super().__init__()
        self.first = Mid()
        self.p0 = Parameter(mt([0.5, -0.5]))
        self.second = Mid()
        self.extra = self.add_parameter("extra", mt([[1.0, 2.0]]))


class TLeaf(torch.nn.Module):
    def __init__(self, leaf: Leaf):
        super().__init__()
        self.w = torch.nn.Parameter(tt(leaf.w.value.to_numpy()))
        self.not_a_param = 3.0
        self.b = torch.nn.Parameter(tt(leaf.b.value.to_numpy()))


class TMid(torch.nn.Module):
    def __init__(self, mid: Mid):
        super().__init__()
        self.scale = torch.nn.Parameter(tt(mid.scale.value.to_numpy()))
        self.left = TLeaf(mid.left)
        self.right = TLeaf(mid.right)
        self.drop = torch.nn.Dropout(0.25)


class TTop(torch.nn.Module):
    def __init__(self, top: Top):
        super().__init__()
        self.first = TMid(top.first)
        self.p0 = torch.nn.Parameter(tt(top.p0.value.to_numpy()))
        self.second = TMid(top.second)
        self.register_parameter("extra", torch.nn.Parameter(tt(top.extra.value.to_numpy())))


def test_named_parameters_match_torch_names_order_and_values():
    np.random.seed(1)
    top = Top()
    ttop = TTop(top)
    ours = [(name, p.value.to_numpy()) for name, p in top.named_parameters()]
    theirs = [(name, p.detach().numpy()) for name, p in ttop.named_parameters()]
    assert [n for n, _ in ours] == [n for n, _ in theirs]
    for (name, a), (_, b) in zip(ours, theirs):
        close(a, b, rtol=0, atol=0, msg=name)
    assert len(top.parameters()) == len(list(ttop.parameters())) == 12
    assert all(isinstance(p, Parameter) for p in top.parameters())
    # Every parameter is a leaf that collects .grad; plain attributes are not registered.
    assert all(p.value.is_leaf() for p in top.parameters())
    assert top.first.left.not_a_param == 3.0
    assert "not_a_param" not in dict(top.first.left.named_parameters())
    assert [type(m).__name__ for m in top.modules()] == ["Mid", "Mid"]
    assert top.extra is top.__dict__["_parameters"]["extra"]


def _training_flags(module, prefix="") -> Dict[str, bool]:
    flags = {prefix or "<root>": module.training}
    for name, child in module.__dict__["_modules"].items():
        flags.update(_training_flags(child, f"{prefix}.{name}" if prefix else name))
    return flags


def _torch_flags(module) -> Dict[str, bool]:
    return {name or "<root>": m.training for name, m in module.named_modules()}


def test_train_eval_recurse_like_torch():
    np.random.seed(2)
    top = Top()
    ttop = TTop(top)
    assert _training_flags(top) == _torch_flags(ttop)
    assert all(_training_flags(top).values())
    top.eval()
    ttop.eval()
    flags = _training_flags(top)
    assert flags == _torch_flags(ttop)
    assert not any(flags.values()) and len(flags) == 9  # root, 2 Mid, 4 Leaf, 2 Dropout
    # train() on a sub-tree only flips that sub-tree.
    top.second.train()
    ttop.second.train()
    assert _training_flags(top) == _torch_flags(ttop)
    assert _training_flags(top)["second.left"] and not _training_flags(top)["first.left"]


def test_dropout_module_follows_train_and_eval():
    np.random.seed(3)
    random.seed(3)
    top = Top()
    x = mt(np.random.normal(size=(400,)) + 5.0)
    top.eval()
    close(top.first.drop(x), x.to_numpy(), rtol=0, atol=0, msg="eval mode must be the identity")
    top.train()
    y = top.first.drop(x).to_numpy()
    kept = y != 0
    assert 0.6 < kept.mean() < 0.9  # rate = 0.25
    close(y[kept], x.to_numpy()[kept], rtol=0, atol=0, msg="kept entries unscaled (the course's dropout)")


def test_parameter_update_keeps_a_named_leaf():
    p = Parameter(mt([1.0, 2.0]), "w")
    assert p.value.is_leaf() and p.value.name == "w"
    new = p.value.detach() * 2.0  # a constant
    assert new.is_constant()
    p.update(new)
    assert p.value.is_leaf() and p.value.name == "w"
    close(p.value, [2.0, 4.0], rtol=0, atol=0)


# ---------------------------------------------------------------------------
# Linear / Embedding
# ---------------------------------------------------------------------------


@BACKENDS
@pytest.mark.parametrize("x_shape", [(5, 4), (2, 3, 4)], ids=["2d", "3d"])
def test_linear_forward_backward(backend, x_shape):
    np.random.seed(4)
    layer = nn.Linear(4, 3, backend=backend)
    W = layer.weights.value.to_numpy()
    b = layer.bias.value.to_numpy()
    assert W.shape == (4, 3) and b.shape == (3,)
    # torch.nn.Linear's default initialisation: U(-1/sqrt(in), 1/sqrt(in)).
    assert np.abs(W).max() <= 0.5 and np.abs(b).max() <= 0.5 and W.std() > 0.05

    xv = np.random.normal(size=x_shape)
    x = mt(xv, backend, requires_grad=True)
    out = layer(x)
    tW, tb, tx = tt(W, True), tt(b, True), tt(xv, True)
    tout = F.linear(tx, tW.T, tb)
    close(out, tout, msg="Linear forward")

    g = np.random.normal(size=tout.shape)
    out.backward(mt(g, backend))
    tout.backward(tt(g))
    close(x.grad, tx.grad, msg="d input")
    close(layer.weights.value.grad, tW.grad, msg="d weights")
    close(layer.bias.value.grad, tb.grad, msg="d bias")


@pytest.mark.parametrize("ids", [[3, 1, 3, 3, 0], [[2, 2, 5], [5, 0, 2]]], ids=["1d", "2d"])
def test_embedding_repeated_ids_accumulate(ids):
    np.random.seed(5)
    emb = nn.Embedding(6, 4)
    W = emb.weights.value.to_numpy()
    ids_arr = np.asarray(ids)
    out = emb(mt(ids_arr))
    tW = tt(W, True)
    tout = F.embedding(torch.tensor(ids_arr, dtype=torch.long), tW)
    close(out, tout, rtol=0, atol=0, msg="Embedding forward")

    g = np.random.normal(size=tout.shape)
    out.backward(mt(g))
    tout.backward(tt(g))
    grad = emb.weights.value.grad.to_numpy()
    close(grad, tW.grad, msg="Embedding backward")
    # The repeated id really got the SUM of its rows (not the last one).
    counts = np.bincount(ids_arr.reshape(-1), minlength=6)
    rep = int(np.argmax(counts))
    assert counts[rep] >= 2
    close(grad[rep], g.reshape(-1, 4)[ids_arr.reshape(-1) == rep].sum(0), msg="repeated id")
    assert np.all(grad[counts == 0] == 0.0)


def test_embedding_rejects_bad_ids():
    emb = nn.Embedding(4, 2)
    with pytest.raises(IndexError):
        emb(mt([0, 4]))
    with pytest.raises(ValueError):
        emb(mt([0.5]))


# ---------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.2, 0.5, 0.7])
def test_dropout_replays_in_torch_with_the_courses_mask(p):
    """The mask is `p < r` for r drawn with random.random() in row-major order; the output is unscaled."""
    rng = np.random.default_rng(6)
    xv = rng.normal(size=(6, 7))
    random.seed(11)
    r = np.array([random.random() for _ in range(xv.size)]).reshape(xv.shape)
    mask = (p < r).astype(np.float64)
    assert 0 < mask.sum() < mask.size
    x = mt(xv, requires_grad=True)
    random.seed(11)
    out = nn.dropout(x, rate=p)
    tx = tt(xv, True)
    tout = tx * tt(mask)
    close(out, tout, rtol=0, atol=0, msg="dropout forward")
    g = rng.normal(size=xv.shape)
    out.backward(mt(g))
    tout.backward(tt(g))
    close(x.grad, tx.grad, rtol=0, atol=0, msg="dropout backward")


@pytest.mark.parametrize("p", [0.1, 0.3, 0.8])
def test_dropout_random_mask_statistics(p):
    random.seed(7)
    n = 200_000
    xv = np.random.default_rng(7).uniform(1.0, 2.0, size=(400, n // 400))  # nowhere zero
    x = mt(xv, requires_grad=True)
    out = nn.dropout(x, p)
    y = out.to_numpy()
    kept = y != 0
    sigma = np.sqrt(p * (1 - p) / n)
    assert abs(kept.mean() - (1 - p)) < 5 * sigma, f"keep rate {kept.mean():.4f}, expected {1 - p}"
    close(y[kept], xv[kept], rtol=0, atol=0, msg="kept entries are not rescaled")
    # E[y] = (1 - p) x: with x = 1 everywhere the mean output is 1 - p within 5 sigma.
    ones = nn.dropout(mt(np.ones(n)), p).to_numpy()
    assert abs(ones.mean() - (1.0 - p)) < 5 * sigma
    # The gradient goes through the same mask.
    out.backward(mt(np.ones(xv.shape)))
    close(x.grad, kept.astype(np.float64), rtol=0, atol=0, msg="dropout gradient")
    # A fresh mask on every call; the same one again after re-seeding Python's random.
    random.seed(8)
    a = nn.dropout(mt(np.ones(1000)), p).to_numpy()
    b = nn.dropout(mt(np.ones(1000)), p).to_numpy()
    random.seed(8)
    a2 = nn.dropout(mt(np.ones(1000)), p).to_numpy()
    assert not np.array_equal(a, b)
    close(a2, a, rtol=0, atol=0)


def test_dropout_identity_and_extremes():
    np.random.seed(9)
    xv = np.random.normal(size=(5, 5))
    x = mt(xv, requires_grad=True)
    assert nn.dropout(x, 0.5, ignore=True) is x and minitorch.dropout(x, rate=0.9, ignore=True) is x
    for out in (nn.dropout(x, 0.5, ignore=True), nn.dropout(x, 0.0), minitorch.dropout(x, 0.9, ignore=True)):
        close(out, xv, rtol=0, atol=0)
    out = nn.dropout(x, 0.5, ignore=True)
    out.backward(mt(np.full(xv.shape, 2.0)))
    close(x.grad, np.full(xv.shape, 2.0), rtol=0, atol=0)
    close(nn.dropout(x, 1.0), np.zeros(xv.shape), rtol=0, atol=0)


# ---------------------------------------------------------------------------
# Losses and softmax
# ---------------------------------------------------------------------------


@BACKENDS
def test_binary_cross_entropy_matches_torch(backend):
    rng = np.random.default_rng(10)
    probs = rng.uniform(0.02, 0.98, size=12)
    labels = (rng.random(12) > 0.5).astype(np.float64)
    out = mt(probs, backend, requires_grad=True)
    loss = nn.binary_cross_entropy(out, mt(labels, backend))
    tout = tt(probs, True)
    tloss = F.binary_cross_entropy(tout, tt(labels), reduction="mean")
    assert loss.shape == (1,)
    close(loss.to_numpy()[0], tloss, msg="BCE value (mean, not sum)")
    loss.backward()
    tloss.backward()
    close(out.grad, tout.grad, msg="BCE gradient")


@BACKENDS
def test_binary_cross_entropy_through_sigmoid(backend):
    rng = np.random.default_rng(11)
    z = rng.normal(scale=3.0, size=(16,))
    labels = (rng.random(16) > 0.5).astype(np.float64)
    x = mt(z, backend, requires_grad=True)
    loss = nn.binary_cross_entropy(x.sigmoid(), mt(labels, backend))
    tx = tt(z, True)
    tloss = F.binary_cross_entropy_with_logits(tx, tt(labels))
    close(loss.to_numpy()[0], tloss, rtol=1e-11, msg="BCE(sigmoid(z))")
    loss.backward()
    tloss.backward()
    close(x.grad, tx.grad, rtol=1e-10, atol=1e-13, msg="d/dz BCE(sigmoid(z))")


@BACKENDS
def test_cross_entropy_from_logits_matches_torch(backend):
    rng = np.random.default_rng(12)
    logits = rng.normal(scale=2.0, size=(7, 5))
    targets = rng.integers(0, 5, size=7)
    x = mt(logits, backend, requires_grad=True)
    loss = nn.cross_entropy(x, mt(targets.astype(np.float64), backend))
    tx = tt(logits, True)
    tloss = F.cross_entropy(tx, torch.tensor(targets, dtype=torch.long))
    close(loss.to_numpy().reshape(()), tloss, msg="cross-entropy value")
    loss.backward()
    tloss.backward()
    close(x.grad, tx.grad, msg="cross-entropy gradient")


def test_cross_entropy_is_stable_for_huge_logits():
    logits = np.array(
        [[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 999.0], [1000.0, 1000.0, -1000.0], [-1000.0, -1000.0, -999.0]]
    )
    targets = np.array([1, 2, 0, 2])
    x = mt(logits, requires_grad=True)
    loss = nn.cross_entropy(x, mt(targets.astype(np.float64)))
    tx = tt(logits, True)
    tloss = F.cross_entropy(tx, torch.tensor(targets, dtype=torch.long))
    value = loss.to_numpy().reshape(())
    assert np.isfinite(value)
    close(value, tloss, msg="cross-entropy at +-1000")
    loss.backward()
    tloss.backward()
    assert np.all(np.isfinite(x.grad.to_numpy()))
    close(x.grad, tx.grad, msg="cross-entropy gradient at +-1000")


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("scale", [1.0, 400.0], ids=["moderate", "huge"])
def test_softmax_and_logsoftmax_match_torch(dim, scale):
    rng = np.random.default_rng(13 + dim)
    v = rng.normal(scale=scale, size=(3, 4, 5))
    g = rng.normal(size=v.shape)
    for ours, theirs, name in (
        (nn.softmax, torch.softmax, "softmax"),
        (nn.logsoftmax, torch.log_softmax, "logsoftmax"),
    ):
        x = mt(v, requires_grad=True)
        out = ours(x, dim)
        tx = tt(v, True)
        tout = theirs(tx, dim)
        assert np.all(np.isfinite(out.to_numpy()))
        close(out, tout, rtol=1e-12, atol=1e-12 * scale, msg=f"{name} forward")
        out.backward(mt(g))
        tout.backward(tt(g))
        close(x.grad, tx.grad, rtol=1e-11, atol=1e-12, msg=f"{name} gradient")


# ---------------------------------------------------------------------------
# Optimizers: trajectories equal to torch.optim.SGD's and to the course's Adam
# ---------------------------------------------------------------------------


class CourseAdam:
    """The course's Adam (spring 2026 optim.py) in torch float64: denominator sqrt(v) + eps,
    step lr * sqrt(1 - beta2^t) / (1 - beta1^t). torch.optim.Adam divides sqrt(v) by
    sqrt(1 - beta2^t) before adding eps, so it differs when eps matters."""

    def __init__(self, params, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params, self.lr, self.beta1, self.beta2, self.eps = list(params), lr, beta1, beta2, eps
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        step_size = self.lr * math.sqrt(1.0 - self.beta2**self.t) / (1.0 - self.beta1**self.t)
        for i, p in enumerate(self.params):
            self.m[i] = self.m[i] * self.beta1 + (1 - self.beta1) * p.grad
            self.v[i] = self.v[i] * self.beta2 + (1 - self.beta2) * p.grad**2
            p -= step_size * self.m[i] / (self.v[i].sqrt() + self.eps)


class MLP(minitorch.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(3, 6)
        self.l2 = nn.Linear(6, 2)

    def forward(self, x):
        return self.l2(self.l1(x).sigmoid())


def _twins(seed: int):
    np.random.seed(seed)
    model = MLP()
    tparams = {name: tt(p.value.to_numpy(), True) for name, p in model.named_parameters()}
    rng = np.random.default_rng(seed)
    batches = [(rng.normal(size=(8, 3)), rng.normal(size=(8, 2))) for _ in range(5)]
    return model, tparams, batches


def _torch_forward(tp, x):
    h = torch.sigmoid(x @ tp["l1.weights"] + tp["l1.bias"])
    return h @ tp["l2.weights"] + tp["l2.bias"]


def _run(model, tparams, batches, make_opts, steps: int) -> List[Tuple[float, float]]:
    """`steps` steps of MSE training in both frameworks, checking parameters after each."""
    opt, topt = make_opts(model.parameters(), list(tparams.values()))
    losses = []
    for step in range(steps):
        xv, yv = batches[step % len(batches)]
        opt.zero_grad()
        diff = model(mt(xv)) - mt(yv)
        loss = (diff * diff).mean()
        loss.backward()
        opt.step()

        topt.zero_grad()
        tdiff = _torch_forward(tparams, tt(xv)) - tt(yv)
        tloss = (tdiff * tdiff).mean()
        tloss.backward()
        topt.step()

        losses.append((loss.item(), tloss.item()))
        close(loss.item(), tloss.item(), msg=f"loss at step {step}")
        for name, p in model.named_parameters():
            close(p.value, tparams[name], rtol=1e-12, atol=1e-13, msg=f"{name} after step {step + 1}")
    return losses


def test_sgd_trajectory_equals_torch():
    model, tparams, batches = _twins(20)
    losses = _run(
        model, tparams, batches, lambda ps, tps: (minitorch.SGD(ps, lr=0.3), torch.optim.SGD(tps, lr=0.3)), 30
    )
    assert losses[-1][0] < 0.9 * losses[0][0]  # it actually trained


@pytest.mark.parametrize(
    "kw",
    [dict(lr=0.01), dict(lr=0.05, beta1=0.8, beta2=0.99, eps=1e-6), dict(lr=0.002, beta1=0.5, beta2=0.9, eps=1e-3)],
    ids=["default", "betas", "big-eps"],
)
def test_adam_trajectory_equals_the_courses_adam(kw):
    model, tparams, batches = _twins(21)
    losses = _run(model, tparams, batches, lambda ps, tps: (minitorch.Adam(ps, **kw), CourseAdam(tps, **kw)), 30)
    assert losses[-1][0] < losses[0][0]


def test_adam_eps_sits_outside_the_bias_correction():
    """With a big eps the course's formula and torch.optim.Adam's part: ours follows the course."""
    kw = dict(lr=0.002, eps=1e-3)
    model, tparams, batches = _twins(21)
    with pytest.raises(AssertionError):
        _run(model, tparams, batches, lambda ps, tps: (minitorch.Adam(ps, **kw), torch.optim.Adam(tps, **kw)), 3)


def test_adam_first_step_is_bias_corrected():
    """Step 1 moves every coordinate by lr * sqrt(bc2) g / (sqrt(bc2) |g| + eps) ~ lr sign(g)."""
    p = Parameter(mt([1.0, -2.0, 3.0]))
    opt = minitorch.Adam([p], lr=0.1)
    loss = (p.value * mt([0.001, -5.0, 40.0])).sum()
    loss.backward()
    opt.step()
    g = np.array([0.001, -5.0, 40.0])
    root = math.sqrt(0.001)
    expected = np.array([1.0, -2.0, 3.0]) - 0.1 * root * g / (root * np.abs(g) + 1e-8)
    close(p.value, expected, rtol=1e-15, atol=1e-15)
    close(p.value, [0.9, -1.9, 2.9], rtol=1e-3, atol=1e-3)


class PerParameterAdam:
    """The course's Adam one parameter at a time, in NumPy (what minitorch.Adam computed before it updated the
    parameters of one step count together): the bit-for-bit reference of `test_adam_updates_..._bit_for_bit`."""

    def __init__(self, parameters, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        self.parameters, self.lr, self.beta1, self.beta2, self.eps = list(parameters), lr, beta1, beta2, eps
        self.states = {}

    def step(self):
        for p in self.parameters:
            if p.value.grad is None:
                continue
            g = p.value.grad.to_numpy()
            state = self.states.setdefault(id(p), {})
            if not state:
                state.update(step=0, exp_avg=np.zeros_like(g), exp_avg_sq=np.zeros_like(g))
            state["step"] += 1
            state["exp_avg"] = state["exp_avg"] * self.beta1 + (1 - self.beta1) * g
            state["exp_avg_sq"] = state["exp_avg_sq"] * self.beta2 + (1 - self.beta2) * g**2
            denom = np.sqrt(state["exp_avg_sq"]) + self.eps
            step_size = self.lr * math.sqrt(1.0 - self.beta2 ** state["step"]) / (1.0 - self.beta1 ** state["step"])
            p.update(Tensor._from_numpy(p.value.to_numpy() - step_size * state["exp_avg"] / denom))


def test_adam_updates_parameters_together_bit_for_bit():
    """minitorch.Adam updates the parameters of one step count as one vector: the same bits as one at a time,
    whichever parameters have a gradient at each step (step counts apart, a parameter first seen late, a
    Parameter listed twice, a transposed gradient), and whatever happens to the values between steps (one
    written in place, one replaced)."""
    rng = np.random.default_rng(5)
    shapes = [(4, 3), (3,), (3, 1), (1,), (2, 2)]

    def params():
        return [Parameter(mt(rng.normal(size=shape))) for shape in shapes]

    ours, theirs = params(), params()
    for a, b in zip(ours, theirs):
        b.update(mt(a.value.to_numpy()))
    opt = minitorch.Adam(ours + [ours[1]], lr=0.05, beta1=0.8, beta2=0.99)
    ref = PerParameterAdam(theirs + [theirs[1]], lr=0.05, beta1=0.8, beta2=0.99)
    with_grad = [{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 2}, {0, 1, 2, 3, 4}, {1, 3, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4},
                 {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}]
    for step, which in enumerate(with_grad):
        for i in range(len(shapes)):
            g = rng.normal(size=shapes[i]) if i in which else None
            for p in (ours[i], theirs[i]):
                p.value.grad = None if g is None else minitorch.tensor(g)
                if i == 0 and g is not None and step % 2:  # a gradient that is a transposed view
                    p.value.grad = minitorch.tensor(g.T).permute(1, 0)
        opt.step()
        ref.step()
        for i, (a, b) in enumerate(zip(ours, theirs)):
            got, want = a.value.to_numpy(), b.value.to_numpy()
            assert got.view(np.int64).tolist() == want.view(np.int64).tolist(), (step, i)
            assert a.value.is_leaf() and a.value.grad is None
        for params in (ours, theirs):  # values changed between steps: one written in place, one replaced
            if step == 5:
                params[2].value[(1, 0)] = 7.0
                assert params[0].value.to_numpy()[0, 0] != 7.0 and params[1].value.to_numpy()[1] != 7.0
            if step == 6:
                params[3].update(mt([-0.25]))


def test_optimizers_skip_parameters_without_grad():
    np.random.seed(22)
    model = MLP()
    before = {n: p.value.to_numpy() for n, p in model.named_parameters()}
    for opt in (minitorch.SGD(model.parameters(), lr=1.0), minitorch.Adam(model.parameters(), lr=1.0)):
        opt.zero_grad()
        opt.step()
    for n, p in model.named_parameters():
        close(p.value, before[n], rtol=0, atol=0, msg=n)


@pytest.mark.parametrize("make", [lambda ps: minitorch.SGD(ps, lr=0.1), lambda ps: minitorch.Adam(ps, lr=0.1)],
                         ids=["SGD", "Adam"])
def test_step_replaces_each_value_so_gradients_never_carry_over(make):
    """The course's optimizers call p.update(new value): a fresh leaf without .grad each step."""
    np.random.seed(24)
    model = MLP()
    opt = make(model.parameters())
    xv = np.random.normal(size=(4, 3))
    model(mt(xv)).sum().backward()
    old = [p.value for p in model.parameters()]
    opt.step()
    for p, o in zip(model.parameters(), old):
        assert p.value is not o and p.value.is_leaf() and p.value.grad is None
        assert o.grad is not None  # the old value keeps its gradient; nothing was cleared in place
    # Without zero_grad, the next backward gives exactly the gradient of the new values alone.
    model(mt(xv)).sum().backward()
    fresh = {n: p.value.grad.to_numpy() for n, p in model.named_parameters()}
    for p in model.parameters():
        p.value.grad = None
    model(mt(xv)).sum().backward()
    for n, p in model.named_parameters():
        close(p.value.grad, fresh[n], rtol=0, atol=0, msg=n)


def test_zero_grad_clears_and_prevents_accumulation():
    np.random.seed(23)
    model = MLP()
    opt = minitorch.SGD(model.parameters(), lr=0.1)
    xv = np.random.normal(size=(4, 3))

    def grads():
        opt.zero_grad()
        model(mt(xv)).sum().backward()
        return {n: p.value.grad.to_numpy() for n, p in model.named_parameters()}

    first = grads()
    # Without zero_grad a second backward accumulates (so the check below can fail) ...
    model(mt(xv)).sum().backward()
    for n, p in model.named_parameters():
        close(p.value.grad, 2 * first[n], msg=f"accumulated {n}")
    # ... zero_grad clears every gradient ...
    opt.zero_grad()
    assert all(p.value.grad is None for p in model.parameters())
    # ... and the next backward starts from scratch.
    again = grads()
    for n in first:
        close(again[n], first[n], rtol=0, atol=0, msg=n)


def test_sgd_on_scalar_parameters_matches_torch():
    p = Parameter(minitorch.Scalar(1.5))
    q = Parameter(minitorch.Scalar(-0.5))
    tp, tq = tt(1.5, True), tt(-0.5, True)
    opt = minitorch.SGD([p, q], lr=0.05)
    topt = torch.optim.SGD([tp, tq], lr=0.05)
    for step in range(25):
        opt.zero_grad()
        loss = (p.value * q.value - 1.0) * (p.value * q.value - 1.0) + p.value * p.value * 0.1
        loss.backward()
        opt.step()
        topt.zero_grad()
        tloss = (tp * tq - 1.0) ** 2 + tp * tp * 0.1
        tloss.backward()
        topt.step()
        close(p.value.data, tp, msg=f"p after {step + 1}")
        close(q.value.data, tq, msg=f"q after {step + 1}")
