"""Every tensor operation against PyTorch in float64: values AND gradients.

Inputs come from `tensor_strategies` (random shapes, permuted strides,
broadcasting pairs). Each test runs the operation on leaves, back-propagates a
random (not all-ones) output gradient, and compares outputs and every input's
`.grad` with torch's. Runs on the NumPy backend and on the pure-Python one.
"""

import random
from typing import Callable, Sequence

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis.strategies import DataObject, data, integers, permutations, sampled_from

import minitorch
from minitorch import Tensor
from strategies import gridded_floats, medium_floats, nonzero_floats, positive_floats, shapes
from tensor_strategies import broadcast_tensors, matmul_tensors, shaped_tensors, tensors, with_backend

SETTINGS = settings(max_examples=25, deadline=None)
BACKENDS = pytest.mark.parametrize(
    "backend", [minitorch.FastBackend, minitorch.SimpleBackend], ids=["numpy", "python"]
)
RTOL, ATOL = 1e-10, 1e-12


def leaf(t: Tensor, backend) -> Tensor:
    """A fresh leaf sharing `t`'s (permuted) storage, on `backend`."""
    x = with_backend(t, backend)
    x.requires_grad_(True)
    return x


def as_torch(t: Tensor) -> torch.Tensor:
    return torch.tensor(t.to_numpy(), dtype=torch.float64, requires_grad=True)


def check(
    ours: Callable[..., Tensor],
    theirs: Callable[..., torch.Tensor],
    inputs: Sequence[Tensor],
    backend,
    seed: int = 0,
    rtol: float = RTOL,
    atol: float = ATOL,
) -> None:
    """Compare forward values and the gradients of every input with torch."""
    xs = [leaf(t, backend) for t in inputs]
    txs = [as_torch(t) for t in inputs]
    out = ours(*xs)
    tout = theirs(*txs)
    assert isinstance(out, Tensor)
    assert out.shape == tuple(tout.shape), f"shape {out.shape} != torch {tuple(tout.shape)}"
    np.testing.assert_allclose(out.to_numpy(), tout.detach().numpy(), rtol=rtol, atol=atol)

    g = np.random.default_rng(seed).normal(size=out.shape)
    out.backward(minitorch.tensor(g, backend=backend))
    if tout.requires_grad:
        tout.backward(torch.tensor(g, dtype=torch.float64))
    for i, (x, tx) in enumerate(zip(xs, txs)):
        expected = tx.grad.numpy() if tx.grad is not None else np.zeros(x.shape)
        assert x.grad is not None, f"input {i} got no gradient"
        assert x.grad.shape == x.shape, f"input {i}: grad shape {x.grad.shape} != {x.shape}"
        np.testing.assert_allclose(
            x.grad.to_numpy(), expected, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}"
        )


# -- one-input operations ---------------------------------------------------------

UNARY = {
    "neg": (lambda x: -x, lambda x: -x, medium_floats),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid, medium_floats),
    "relu": (lambda x: x.relu(), torch.relu, gridded_floats() | medium_floats),
    "log": (lambda x: x.log(), torch.log, positive_floats),
    "exp": (lambda x: x.exp(), torch.exp, medium_floats),
    "inv": (lambda x: 1.0 / x, lambda x: 1.0 / x, nonzero_floats()),
    "add_scalar": (lambda x: x + 2.5, lambda x: x + 2.5, medium_floats),
    "radd_scalar": (lambda x: 2.5 + x, lambda x: 2.5 + x, medium_floats),
    "sub_scalar": (lambda x: x - 1.5, lambda x: x - 1.5, medium_floats),
    # no `1.5 - x`: the course's Tensor has no __rsub__ (tests/test_course_surface.py); its spelling is -x + 1.5
    "neg_add_scalar": (lambda x: -x + 1.5, lambda x: -x + 1.5, medium_floats),
    "mul_scalar": (lambda x: x * -3.0, lambda x: x * -3.0, medium_floats),
    "rmul_scalar": (lambda x: -3.0 * x, lambda x: -3.0 * x, medium_floats),
    "div_scalar": (lambda x: x / 4.0, lambda x: x / 4.0, medium_floats),
    "square": (lambda x: x * x, lambda x: x * x, medium_floats),
    "sum_all": (lambda x: x.sum(), lambda x: x.sum().reshape(1), medium_floats),
    "mean_all": (lambda x: x.mean(), lambda x: x.mean().reshape(1), medium_floats),
    "contiguous": (lambda x: x.contiguous(), lambda x: x.contiguous(), medium_floats),
    "lt_scalar": (lambda x: x < 0.5, lambda x: (x < 0.5).double(), gridded_floats()),
    "gt_scalar": (lambda x: x > 0.5, lambda x: (x > 0.5).double(), gridded_floats()),
    "eq_scalar": (lambda x: x == 0.5, lambda x: (x == 0.5).double(), gridded_floats()),
    "is_close": (lambda x: x.is_close(x + 0.005), lambda x: ((x - (x + 0.005)).abs() < 1e-2).double(), medium_floats),
    # minitorch's all() is a product reduction: a boolean "all" for 0/1 tensors
    "all": (lambda x: x.all(), lambda x: torch.all(x != 0).double().reshape(1), sampled_from([0.0, 1.0])),
    "composite": (
        lambda x: ((x * 2.0 + 1.0).sigmoid() * x.exp()).log() - x / 3.0,
        lambda x: (torch.sigmoid(x * 2.0 + 1.0) * x.exp()).log() - x / 3.0,
        medium_floats,
    ),
}


@BACKENDS
@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(d=data())
def test_unary(backend, name, d: DataObject):
    ours, theirs, numbers = UNARY[name]
    t = d.draw(tensors(numbers))
    check(ours, theirs, [t], backend, seed=d.draw(integers(0, 100)))


# -- two-input operations (broadcasting) ---------------------------------------

BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, medium_floats),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, medium_floats),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, medium_floats),
    "div": (lambda a, b: a / b, lambda a, b: a / b, nonzero_floats()),
    "lt": (lambda a, b: a < b, lambda a, b: (a < b).double(), gridded_floats()),
    "gt": (lambda a, b: a > b, lambda a, b: (a > b).double(), gridded_floats()),
    "eq": (lambda a, b: a == b, lambda a, b: (a == b).double(), gridded_floats()),
    "is_close": (lambda a, b: a.is_close(b), lambda a, b: ((a - b).abs() < 1e-2).double(), gridded_floats()),
    "composite": (
        lambda a, b: (a * b + a).relu() * (b - a * 0.5).sigmoid(),
        lambda a, b: torch.relu(a * b + a) * torch.sigmoid(b - a * 0.5),
        medium_floats,
    ),
}


@BACKENDS
@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(d=data())
def test_binary_broadcast(backend, name, d: DataObject):
    """Broadcasting pairs: the smaller input's gradient is summed back to its shape."""
    ours, theirs, numbers = BINARY[name]
    a, b = d.draw(broadcast_tensors(numbers))
    check(ours, theirs, [a, b], backend, seed=d.draw(integers(0, 100)))


@BACKENDS
@pytest.mark.parametrize("name", ["add", "mul", "div", "lt"])
@SETTINGS
@given(d=data())
def test_binary_same_shape(backend, name, d: DataObject):
    ours, theirs, numbers = BINARY[name]
    a, b = d.draw(shaped_tensors(2, numbers))
    check(ours, theirs, [a, b], backend)


def test_broadcast_error_from_tensor_ops():
    a, b = minitorch.tensor([[1.0, 2.0, 3.0]] * 2), minitorch.tensor([1.0, 2.0])
    with pytest.raises(minitorch.IndexingError, match=r"\(2, 3\).*\(2,\)"):
        a + b


# -- reductions, shape operations -------------------------------------------------


@BACKENDS
@pytest.mark.parametrize("op", ["sum", "mean"])
@SETTINGS
@given(d=data())
def test_reduce_dim(backend, op, d: DataObject):
    t = d.draw(tensors(medium_floats))
    dim = d.draw(integers(min_value=-t.dims, max_value=t.dims - 1))
    check(
        lambda x: getattr(x, op)(dim),
        lambda x: getattr(x, op)(dim, keepdim=True),
        [t],
        backend,
    )


@BACKENDS
@SETTINGS
@given(d=data())
def test_permute(backend, d: DataObject):
    t = d.draw(tensors(medium_floats))
    order = d.draw(permutations(range(t.dims)))
    check(lambda x: x.permute(*order) * 1.0, lambda x: x.permute(*order) * 1.0, [t], backend)
    # a permute is a view: no copy, no new storage
    p = t.permute(*order)
    assert p._tensor._storage is t._tensor._storage


@BACKENDS
@SETTINGS
@given(d=data())
def test_view_after_contiguous(backend, d: DataObject):
    t = d.draw(tensors(medium_floats))
    new_shape = d.draw(sampled_from([(t.size,), (-1, t.shape[-1]), (1, t.size, 1), tuple(reversed(t.shape))]))
    check(
        lambda x: x.contiguous().view(*new_shape).exp(),
        lambda x: x.contiguous().view(*new_shape).exp(),
        [t],
        backend,
    )


@BACKENDS
@SETTINGS
@given(matmul_tensors(medium_floats))
def test_matmul(backend, pair):
    """Batched, broadcast batch dims: gradients of broadcast operands are summed."""
    a, b = pair
    check(lambda x, y: x @ y, lambda x, y: x @ y, [a, b], backend, rtol=1e-9, atol=1e-11)


@SETTINGS
@given(d=data())
def test_linear_layer_chain(d: DataObject):
    """x @ W + b -> relu -> sum over dim 1 -> sigmoid -> mean (a tiny network)."""
    n, k, m = (d.draw(integers(1, 5)) for _ in range(3))
    x = d.draw(tensors(medium_floats, shape=(n, k)))
    w = d.draw(tensors(medium_floats, shape=(k, m)))
    b = d.draw(tensors(medium_floats, shape=(m,)))
    check(
        lambda x, w, b: ((x @ w + b).relu().sum(1).sigmoid()).mean(),
        lambda x, w, b: torch.sigmoid(torch.relu(x @ w + b).sum(1, keepdim=True)).mean().reshape(1),
        [x, w, b],
        minitorch.FastBackend,
    )


def test_sum_and_mean_whole_non_contiguous():
    a = np.arange(12.0).reshape(3, 4)
    t = minitorch.tensor(a, requires_grad=True)
    p = t.permute(1, 0)
    s = p.sum() + p.mean() * 2.0
    assert s.shape == (1,)
    np.testing.assert_allclose(s.item(), a.sum() + 2 * a.mean())
    s.backward()
    np.testing.assert_allclose(t.grad.to_numpy(), np.full((3, 4), 1.0 + 2.0 / 12))


# -- embedding and dropout ---------------------------------------------------------


@SETTINGS
@given(d=data())
def test_embedding_vs_torch(d: DataObject):
    """Repeated ids: their gradient rows ADD UP; the ids get no gradient."""
    vocab = d.draw(integers(1, 5))
    dim = d.draw(integers(1, 4))
    id_shape = d.draw(shapes(max_dims=2, max_side=6))
    ids = np.array(
        d.draw(st_lists_of_ids(vocab, int(np.prod(id_shape)))), dtype=np.float64
    ).reshape(id_shape)
    weight = d.draw(tensors(medium_floats, shape=(vocab, dim)))
    w = leaf(weight, minitorch.FastBackend)
    tw = as_torch(weight)
    out = minitorch.embedding(w, minitorch.tensor(ids))
    tout = torch.nn.functional.embedding(torch.tensor(ids, dtype=torch.long), tw)
    assert out.shape == tuple(tout.shape) == id_shape + (dim,)
    np.testing.assert_allclose(out.to_numpy(), tout.detach().numpy(), rtol=0, atol=0)
    g = np.random.default_rng(1).normal(size=out.shape)
    out.backward(minitorch.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(w.grad.to_numpy(), tw.grad.numpy(), rtol=1e-12, atol=1e-12)


def st_lists_of_ids(vocab: int, n: int):
    from hypothesis.strategies import lists

    return lists(integers(0, vocab - 1), min_size=n, max_size=n)


def test_embedding_repeated_ids_add_up():
    w = minitorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    ids = minitorch.tensor([[2, 2, 0], [2, 1, 0]])
    out = minitorch.Embedding.apply(w, ids)
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.to_numpy(), [[2, 2], [1, 1], [3, 3]])
    assert ids.grad is None
    with pytest.raises(IndexError):
        minitorch.embedding(w, [3])
    with pytest.raises(ValueError):
        minitorch.embedding(w, [0.5])


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_dropout_mask_replayed_in_torch(p):
    """The course's dropout: x * (p < r), r = rand(x.shape); one Mul node, the mask a constant."""
    x_np = np.random.default_rng(0).normal(size=(6, 7))
    random.seed(1)
    mask = minitorch.nn.dropout_mask((6, 7), p)
    assert mask.is_constant()
    m = mask.to_numpy()
    assert set(np.unique(m)) <= {0.0, 1.0}
    if p == 0.0:
        assert m.all()
    if p == 1.0:
        assert not m.any()
    x = minitorch.tensor(x_np, requires_grad=True)
    random.seed(1)
    out = minitorch.dropout(x, p)
    assert out.history.last_fn is minitorch.Mul
    tx = torch.tensor(x_np, requires_grad=True)
    tout = tx * torch.tensor(m)
    np.testing.assert_allclose(out.to_numpy(), tout.detach().numpy(), rtol=0, atol=0)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), tx.grad.numpy(), rtol=0, atol=0)


def test_dropout_mask_seeded_and_rate():
    random.seed(5)
    a = minitorch.nn.dropout_mask((100, 100), 0.25).to_numpy()
    random.seed(5)
    b = minitorch.nn.dropout_mask((100, 100), 0.25).to_numpy()
    np.testing.assert_array_equal(a, b)
    assert abs(a.mean() - 0.75) < 0.02


def test_rand_draws_python_random_in_row_major_order():
    random.seed(3)
    expected = np.array([random.random() for _ in range(12)]).reshape(3, 4)
    random.seed(3)
    a = minitorch.rand((3, 4)).to_numpy()
    np.testing.assert_array_equal(a, expected)
    random.seed(3)
    b = minitorch.rand((3, 4), requires_grad=True)
    np.testing.assert_array_equal(b.to_numpy(), expected)
    assert b.is_leaf() and ((a >= 0) & (a < 1)).all()


# -- grad_check (central differences) on every Function ----------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: a.sigmoid(),
        lambda a: a.exp(),
        lambda a: (a * a + 1.0).log(),
        lambda a: a.relu(),
        lambda a: a.sum(0),
        lambda a: a.mean(1),
        lambda a: a.permute(1, 0) * 2.0,
        lambda a: 1.0 / (a * a + 1.0),
    ],
)
def test_grad_check(fn):
    np.random.seed(11)
    a = minitorch.tensor(np.random.normal(size=(3, 4)) + 0.05)
    minitorch.grad_check(fn, a)


def test_grad_check_two_inputs():
    np.random.seed(12)
    a = minitorch.tensor(np.random.normal(size=(2, 3)))
    b = minitorch.tensor(np.random.normal(size=(3, 4)))
    minitorch.grad_check(lambda x, y: (x @ y).sigmoid(), a, b)
    minitorch.grad_check(lambda x, y: x * y.sum(1).view(1, 3), a, b)
