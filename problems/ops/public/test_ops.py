r"""Public tests for problem `ops`: forward and backward of the tensor Functions.

Lecture "Tensors and autodiff": a Function's `backward(ctx, grad_output)` is its
vector-Jacobian product — one gradient per input, ḡ · ∂f/∂input. Gradients are
checked through `out.chain_rule(grad_output)` (the Variable protocol), which
calls your `backward` and sums a broadcast input's gradient back to the
input's shape; so these tests do not depend on your `autodiff` answer.

Inputs are fixed random values; some are stored with permuted strides
(non-contiguous), like the tensors that `permute` produces, so forwards must
go through the backend operations (`t.f.add_zip`, `t.f.neg_map`, ...), which
respect strides. The hidden grading checks every op on more random shapes,
broadcasts and layouts; see README.md.
"""

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np
import pytest

import minitorch

pytestmark = pytest.mark.ops

RTOL, ATOL = 1e-9, 1e-12


def as_tensor(arr, layout=None):
    """A leaf tensor (requires_grad) holding `arr`.

    `layout` is an axis order: the values are stored in that order, so the tensor
    has the shape of `arr` but permuted (non-contiguous) strides. It is built from
    raw storage, without calling any of the Functions under test.
    """
    arr = np.asarray(arr, dtype=np.float64)
    if layout is None:
        t = minitorch.Tensor.make(arr.reshape(-1).copy(), arr.shape)
    else:
        stored = np.ascontiguousarray(np.transpose(arr, layout))
        stored_strides = [int(s) // 8 for s in stored.strides]
        strides = [0] * arr.ndim
        for k, axis in enumerate(layout):
            strides[axis] = stored_strides[k]
        t = minitorch.Tensor.make(stored.reshape(-1).copy(), arr.shape, tuple(strides))
        assert not t._tensor.is_contiguous()
    t.requires_grad_(True)
    return t


def show(arr):
    """A compact printout of an array for failure messages."""
    return np.array2string(np.asarray(arr), precision=4, suppress_small=True, threshold=12, max_line_width=200)


@dataclass
class Case:
    """One op: how to call it, what NumPy says it computes, and the lecture's rule."""

    name: str
    #: builds the output from the leaf tensors
    call: Callable
    #: the input arrays and their layouts (None: contiguous)
    inputs: Sequence[np.ndarray]
    layouts: Sequence[Optional[Sequence[int]]]
    #: NumPy forward
    forward: Callable
    #: NumPy vector-Jacobian product: grad_output → one gradient per input
    vjp: Callable
    forward_rule: str
    backward_rule: str
    #: optional: (student gradients, expected, inputs, g) → a more specific hint or ""
    hint: Optional[Callable] = None


rng = np.random.default_rng(11868)


def away_from_zero(shape):
    """Values in ±[0.5, 2]: safe for 1/x, ReLU' and log|x|."""
    return rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def sigmoid_hint(grads, expected, inputs, g):
    x = inputs[0]
    if np.allclose(grads[0], g * x * (1 - x), rtol=1e-6, atol=1e-9):
        return " (you computed x(1 − x) from the input x; use the output σ(x) instead)"
    return ""


def permute_hint(grads, expected, inputs, g):
    order = (1, 2, 0)
    if np.shape(grads[0]) == np.transpose(g, order).shape and np.shape(grads[0]) != np.shape(expected[0]):
        return " (you permuted grad_output by `order` again; permute it by the inverse order)"
    return ""


X23 = away_from_zero((2, 3))
X34 = away_from_zero((3, 4))
POS34 = rng.uniform(0.2, 3.0, (3, 4))
Y4 = away_from_zero((4,))
Y31 = away_from_zero((3, 1))
EQ_Y = X34.copy()
EQ_Y[0, 1] += 1.0
EQ_Y[2, 3] -= 0.25
X234 = away_from_zero((2, 3, 4))
A = away_from_zero((2, 2, 3))  # a batch of two 2×3 matrices
B = away_from_zero((3, 4))  # one 3×4 matrix, broadcast over the batch

CASES = [
    Case("neg", lambda x: -x, [X34], [(1, 0)], lambda x: -x, lambda g, x: [-g],
         "−x elementwise", "∂(−x)/∂x = −1, so grad_input = −grad_output"),
    Case("inv", lambda x: minitorch.Inv.apply(x), [X34], [(1, 0)], lambda x: 1.0 / x,
         lambda g, x: [-g / x**2],
         "1/x elementwise", "d(1/x)/dx = −1/x², so grad_input = −grad_output / x²"),
    Case("add", lambda x, y: x + y, [X34, Y4], [(1, 0), None], lambda x, y: x + y, lambda g, x, y: [g, g.sum(0)],
         "x + y with broadcasting ([3, 4] + [4])",
         "∂(x + y)/∂x = ∂(x + y)/∂y = 1: both inputs get grad_output (chain_rule then sums it over "
         "the dims that y was broadcast along)"),
    Case("mul", lambda x, y: x * y, [X34, Y31], [(1, 0), None], lambda x, y: x * y,
         lambda g, x, y: [g * y, (g * x).sum(1, keepdims=True)],
         "x · y elementwise with broadcasting ([3, 4] · [3, 1])",
         "product rule: x̄ = ḡ · y and ȳ = ḡ · x — each input gets grad_output times the OTHER input "
         "(save both inputs in forward)"),
    Case("sigmoid", lambda x: x.sigmoid(), [X34], [(1, 0)], sigmoid,
         lambda g, x: [g * sigmoid(x) * (1 - sigmoid(x))],
         "σ(x) = 1/(1 + e^(−x)) elementwise",
         "σ'(x) = σ(x)(1 − σ(x)), so grad_input = grad_output · σ(x)(1 − σ(x)) — save σ(x), the output",
         hint=sigmoid_hint),
    Case("relu", lambda x: x.relu(), [X34], [(1, 0)], lambda x: np.maximum(x, 0.0),
         lambda g, x: [g * (x > 0)],
         "max(x, 0) elementwise", "ReLU'(x) = 1 where x > 0, else 0: grad_input = grad_output where x > 0"),
    Case("log", lambda x: x.log(), [POS34], [(1, 0)], np.log, lambda g, x: [g / x],
         "log x elementwise", "d log x/dx = 1/x, so grad_input = grad_output / x"),
    Case("exp", lambda x: x.exp(), [X34], [(1, 0)], np.exp, lambda g, x: [g * np.exp(x)],
         "e^x elementwise", "d e^x/dx = e^x, so grad_input = grad_output · e^x"),
    Case("sum_dim0", lambda x: x.sum(0), [X34], [(1, 0)], lambda x: x.sum(0, keepdims=True),
         lambda g, x: [np.broadcast_to(g, x.shape)],
         "the sum over dim 0, kept with size 1 ([3, 4] → [1, 4])",
         "every element of a summed slice has weight 1: grad_input is grad_output broadcast back along "
         "the summed dim (the dim argument gets gradient 0.0)"),
    Case("sum_dim1", lambda x: x.sum(1), [X34], [(1, 0)], lambda x: x.sum(1, keepdims=True),
         lambda g, x: [np.broadcast_to(g, x.shape)],
         "the sum over dim 1, kept with size 1 ([3, 4] → [3, 1])",
         "every element of a summed slice has weight 1: grad_input is grad_output broadcast back along "
         "the summed dim (the dim argument gets gradient 0.0)"),
    Case("lt", lambda x, y: x < y, [X34, EQ_Y], [(1, 0), None], lambda x, y: (x < y).astype(float),
         lambda g, x, y: [np.zeros_like(x), np.zeros_like(y)],
         "1.0 where x < y, else 0.0",
         "a comparison is piecewise constant: both inputs get gradient 0 (zeros of each input's shape)"),
    Case("eq", lambda x, y: x == y, [X34, EQ_Y], [(1, 0), None], lambda x, y: (x == y).astype(float),
         lambda g, x, y: [np.zeros_like(x), np.zeros_like(y)],
         "1.0 where x == y, else 0.0",
         "a comparison is piecewise constant: both inputs get gradient 0 (zeros of each input's shape)"),
    Case("permute", lambda x: x.permute(1, 2, 0), [X234], [None], lambda x: np.transpose(x, (1, 2, 0)),
         lambda g, x: [np.transpose(g, np.argsort((1, 2, 0)))],
         "a view with the dims reordered: output dim i is input dim order[i] (order = (1, 2, 0))",
         "a permutation only moves values: send grad_output back with the INVERSE order "
         "(input dim order[i] ← output dim i, i.e. np.argsort(order) = (2, 0, 1))",
         hint=permute_hint),
    Case("view", lambda x: x.view(4, 3), [X34], [None], lambda x: x.reshape(4, 3),
         lambda g, x: [g.reshape(x.shape)],
         "the same storage seen with another shape ([3, 4] → [4, 3])",
         "a view only reshapes: grad_input is grad_output (made contiguous) seen with the input's shape"),
    Case("matmul", lambda a, b: a @ b, [A, B], [(0, 2, 1), None], lambda a, b: a @ b,
         lambda g, a, b: [g @ b.T, (np.swapaxes(a, -1, -2) @ g).sum(0)],
         "the batched matrix product over the last two dims ([2, 2, 3] @ [3, 4] → [2, 2, 4])",
         "C = A·B gives Ā = C̄·Bᵀ and B̄ = Aᵀ·C̄ (transpose the last two dims); chain_rule sums B̄ over "
         "the batch dim that B was broadcast along"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_forward(case):
    """The op's values, with some inputs stored with permuted strides."""
    inputs = [as_tensor(a, lay) for a, lay in zip(case.inputs, case.layouts)]
    out = case.call(*inputs)
    expected = case.forward(*case.inputs)
    got = out.to_numpy()
    assert got.shape == expected.shape, (
        f"{case.name} forward computes {case.forward_rule}: output shape {got.shape}, expected {expected.shape}"
    )
    assert np.allclose(got, expected, rtol=RTOL, atol=ATOL), (
        f"{case.name} forward computes {case.forward_rule}; use the backend's map/zip/reduce (t.f....), which "
        f"read inputs through their strides — got {show(got)}, expected {show(expected)}"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_backward(case):
    """The op's vector-Jacobian product: one gradient per input, shaped like that input."""
    inputs = [as_tensor(a, lay) for a, lay in zip(case.inputs, case.layouts)]
    out = case.call(*inputs)
    g = rng.uniform(-1.0, 1.0, out.shape)
    expected = case.vjp(g, *case.inputs)
    try:
        pairs = out.chain_rule(minitorch.tensor(g))
    except NotImplementedError:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{case.name} backward failed ({type(exc).__name__}: {exc}): backward must return one "
            f"gradient per input, shaped like the output (or like that input) — {case.backward_rule}"
        ) from exc
    by_id = {var.unique_id: d for var, d in pairs}
    grads = []
    for i, (leaf, _) in enumerate(zip(inputs, expected)):
        assert leaf.unique_id in by_id, f"{case.name} backward: no gradient for input {i}"
        d = by_id[leaf.unique_id]
        grads.append(d.to_numpy() if isinstance(d, minitorch.Tensor) else np.asarray(d, dtype=np.float64))
    for i, (got, want) in enumerate(zip(grads, expected)):
        hint = case.hint(grads, expected, case.inputs, g) if case.hint else ""
        assert got.shape == want.shape, (
            f"{case.name} backward, input {i}: {case.backward_rule}{hint} — the gradient has shape "
            f"{got.shape}, expected {want.shape}"
        )
        assert np.allclose(got, want, rtol=RTOL, atol=ATOL), (
            f"{case.name} backward, input {i}: {case.backward_rule}{hint} — got {show(got)}, expected {show(want)}"
        )

