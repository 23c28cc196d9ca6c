"""Differentiable functions on tensors.

Each `Function` subclass defines `forward(ctx, *inputs)` (compute the output,
save what backward needs) and `backward(ctx, grad_output)` (return one
gradient per input). `Function.apply` runs `forward` on *detached* inputs and,
if any input requires a gradient, records a `History` on the output so that
`autodiff.backpropagate` can later call `backward`.

Rules every Function here follows:

* forward/backward use only the backend operations (`t.f.add_zip`,
  `t.f.mul_zip`, `t.f.add_reduce`, `t.f.matrix_multiply`, ...), never NumPy
  directly (the documented exception is `Embedding`);
* backward returns gradients shaped like the forward's output (broadcast
  shape); `Tensor.chain_rule` sums each one back to its input's shape
  (`Tensor.expand`), so broadcast inputs get the summed gradient;
* non-tensor arguments (a dimension, an order, a shape) are passed as
  constant tensors and get the gradient `0.0`.
"""

from __future__ import annotations

import random
import warnings  # noqa: F401  (the course's tensor_functions has the name)
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

import numpy as np

import minitorch

from . import operators  # noqa: F401  (llmsys files use operators.prod)
from .autodiff import Context
from .tensor_data import TensorData, _td_from_array, _uniform_floats, datasize, datatype  # noqa: F401
from .tensor_ops import FastBackend, SimpleBackend, TensorBackend  # noqa: F401

if TYPE_CHECKING:
    from .tensor import Tensor
    from .tensor_data import UserIndex, UserShape


def wrap_tuple(x: Any) -> Tuple[Any, ...]:
    """Turn a single value into a 1-tuple; leave tuples alone."""
    if isinstance(x, tuple):
        return x
    return (x,)


class Function:
    """A differentiable tensor function (subclasses define forward/backward)."""

    @classmethod
    def _backward(cls, ctx: Context, grad_out: "Tensor") -> Tuple["Tensor", ...]:
        return wrap_tuple(cls.backward(ctx, grad_out))  # type: ignore[attr-defined]

    @classmethod
    def _forward(cls, ctx: Context, *inps: "Tensor") -> "Tensor":
        return cls.forward(ctx, *inps)  # type: ignore[attr-defined]

    @classmethod
    def apply(cls, *vals: "Tensor") -> "Tensor":
        """Run `forward` on detached inputs; record history if any input needs a gradient."""
        raw_vals = []
        need_grad = False
        for v in vals:
            if v.history is not None:
                need_grad = True
                raw_vals.append(v.detach())
            else:
                raw_vals.append(v)  # already a constant: detaching would only copy it

        # Create the context.
        ctx = Context(not need_grad)

        # Call forward with the variables.
        c = cls._forward(ctx, *raw_vals)

        # Create a new variable from the result with a new history.
        out = c._new(c._tensor)  # Tensor(c._tensor, backend=c.backend): a new node over the same data
        if need_grad:
            out.history = minitorch.History(cls, ctx, vals)
        return out


def _const(value: float, like: "Tensor") -> "Tensor":
    """A constant tensor of shape (1,) holding `value`, on the backend of `like`."""
    return like._new(TensorData._from_array(np.array([value], dtype=np.float64)))


class Neg(Function):
    """$f(x) = -x$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor") -> "Tensor":
        return t1.f.neg_map(t1)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        return grad_output.f.neg_map(grad_output)


class Inv(Function):
    r"""$f(x) = 1/x$, $f'(x) = -1/x^2$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor") -> "Tensor":
        ctx.save_for_backward(t1)
        return t1.f.inv_map(t1)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        (t1,) = ctx.saved_values
        return grad_output.f.inv_back_zip(t1, grad_output)


class Add(Function):
    """$f(x, y) = x + y$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor", t2: "Tensor") -> "Tensor":
        return t1.f.add_zip(t1, t2)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", "Tensor"]:
        return grad_output, grad_output


class Mul(Function):
    """$f(x, y) = x y$"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        ctx.save_for_backward(a, b)
        return a.f.mul_zip(a, b)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", "Tensor"]:
        a, b = ctx.saved_values
        return grad_output.f.mul_zip(grad_output, b), grad_output.f.mul_zip(grad_output, a)


class PowerScalar(Function):
    r"""$f(a, s) = a^s$ elementwise, `s` a constant tensor of shape (1,) (given code, as in the course).

    $\partial f / \partial a = s\, a^{s-1}$; the exponent gets the gradient 0.0.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", scalar: "Tensor") -> "Tensor":
        ctx.save_for_backward(a, scalar)
        return a.f.pow_scalar_zip(a, scalar)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", float]:
        a, scalar = ctx.saved_values
        f = grad_output.f
        power = f.pow_scalar_zip(a, f.add_zip(scalar, _const(-1.0, scalar)))
        return f.mul_zip(grad_output, f.mul_zip(scalar, power)), 0.0


class Tanh(Function):
    r"""$f(x) = \tanh x$, $f'(x) = 1 - \tanh^2 x$ (given code, as in the course)."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        out = a.f.tanh_map(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        (out,) = ctx.saved_values
        f = grad_output.f
        one_minus_sq = f.add_zip(_const(1.0, out), f.neg_map(f.mul_zip(out, out)))
        return f.mul_zip(grad_output, one_minus_sq)


class Sigmoid(Function):
    r"""$\sigma(x) = 1 / (1 + e^{-x})$, $\sigma'(x) = \sigma(x)(1 - \sigma(x))$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor") -> "Tensor":
        out = t1.f.sigmoid_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        (s,) = ctx.saved_values
        f = grad_output.f
        one_minus_s = f.add_zip(minitorch.tensor([1.0], backend=f), f.neg_map(s))
        return f.mul_zip(grad_output, f.mul_zip(s, one_minus_s))


class ReLU(Function):
    """$f(x) = \\max(x, 0)$, $f'(x) = 1$ if $x > 0$ else $0$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor") -> "Tensor":
        ctx.save_for_backward(t1)
        return t1.f.relu_map(t1)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        (t1,) = ctx.saved_values
        return grad_output.f.relu_back_zip(t1, grad_output)


class Log(Function):
    r"""$f(x) = \log x$, $f'(x) = 1/x$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor") -> "Tensor":
        ctx.save_for_backward(t1)
        return t1.f.log_map(t1)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        (t1,) = ctx.saved_values
        return grad_output.f.log_back_zip(t1, grad_output)


class Exp(Function):
    """$f(x) = e^x$, $f'(x) = e^x$"""

    @staticmethod
    def forward(ctx: Context, t1: "Tensor") -> "Tensor":
        out = t1.f.exp_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        (out,) = ctx.saved_values
        return grad_output.f.mul_zip(grad_output, out)


class Sum(Function):
    r"""$f(x)_{\ldots 0 \ldots} = \sum_j x_{\ldots j \ldots}$ over dimension `dim` (kept, size 1).

    `dim` is a constant tensor holding the dimension. Every input element gets
    the gradient of the sum it went into.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: "Tensor") -> "Tensor":
        ctx.save_for_backward(a.shape)
        return a.f.add_reduce(a, int(dim._tensor._storage[0]))

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", float]:
        (a_shape,) = ctx.saved_values
        out = grad_output.zeros(a_shape)
        grad_output.f.id_map(grad_output, out)  # broadcast the reduced dim back up
        return out, 0.0


class Mean(Function):
    r"""Given helper: $f(x) = \frac1n \sum_j x_j$ over `dim`, or over everything.

    `Mean.apply(a, dim)` with a constant tensor `dim` keeps that dim with size
    1; `Mean.apply(a)` averages every element (shape (1,)). One graph node
    instead of a Sum followed by a division.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: Optional["Tensor"] = None) -> "Tensor":
        if dim is None:
            src = a if a._tensor.is_contiguous() else a.f.id_map(a)
            src = a._new(TensorData(src._tensor._storage, (a.size,)))
            d, n = 0, a.size
        else:
            src, d = a, int(dim.item())
            n = a.shape[d]
        ctx.save_for_backward(a.shape, n, dim is not None)
        return a.f.mul_zip(a.f.add_reduce(src, d), _const(1.0 / n, a))

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", ...]:
        a_shape, n, has_dim = ctx.saved_values
        f = grad_output.f
        out = grad_output.zeros(a_shape)
        g = f.mul_zip(grad_output, _const(1.0 / n, grad_output))
        if g.dims != len(a_shape):  # whole-tensor mean: (1,) -> (1, ..., 1)
            g = g._new(TensorData(g._tensor._storage, (1,) * len(a_shape)))
        f.id_map(g, out)
        return (out, 0.0) if has_dim else out


class All(Function):
    """Product of the elements (along `dim`, or overall): for 0/1 tensors, 1.0 iff all are 1.

    minitorch semantics (`mul_reduce`); the gradient is defined as 0.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: Optional["Tensor"] = None) -> "Tensor":
        ctx.save_for_backward(a.shape, dim is not None)
        if dim is None:
            src = a if a._tensor.is_contiguous() else a.f.id_map(a)
            return a.f.mul_reduce(a._new(TensorData(src._tensor._storage, (a.size,))), 0)
        return a.f.mul_reduce(a, int(dim.item()))

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", ...]:
        a_shape, has_dim = ctx.saved_values
        zero = grad_output.zeros(a_shape)
        return (zero, 0.0) if has_dim else zero


class LT(Function):
    """$f(x, y) = 1$ if $x < y$ else $0$ (gradient 0)"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.lt_zip(a, b)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", "Tensor"]:
        a_shape, b_shape = ctx.saved_values
        return grad_output.zeros(a_shape), grad_output.zeros(b_shape)


class EQ(Function):
    """$f(x, y) = 1$ if $x = y$ else $0$ (gradient 0)"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.eq_zip(a, b)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", "Tensor"]:
        a_shape, b_shape = ctx.saved_values
        return grad_output.zeros(a_shape), grad_output.zeros(b_shape)


class IsClose(Function):
    """$f(x, y) = 1$ if $|x - y| < 10^{-2}$ else $0$ (given code, as in the course).

    A comparison used by tests, never differentiated: its backward (zeros) is
    given here; the course gives IsClose without one.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.is_close_zip(a, b)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", "Tensor"]:
        a_shape, b_shape = ctx.saved_values
        return grad_output.zeros(a_shape), grad_output.zeros(b_shape)


class Permute(Function):
    """Reorder the dimensions (a view): output dim `i` is input dim `order[i]`."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", order: "Tensor") -> "Tensor":
        order_list = [int(o) for o in order._tensor._storage.tolist()]
        ctx.save_for_backward(order_list)
        return a._new(a._tensor.permute(*order_list))

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", float]:
        (order_list,) = ctx.saved_values
        inverse = [0] * len(order_list)
        for i, o in enumerate(order_list):
            inverse[o] = i
        return grad_output._new(grad_output._tensor.permute(*inverse)), 0.0


class View(Function):
    """The same storage seen with another shape (the input must be contiguous)."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", shape: "Tensor") -> "Tensor":
        assert a._tensor.is_contiguous(), (
            f"Must be contiguous to view: a tensor of shape {a.shape} with strides "
            f"{a._tensor.strides}; call .contiguous() first."
        )
        shape2 = tuple(int(s) for s in shape._tensor._storage.tolist())
        ctx.save_for_backward(a.shape)
        return minitorch.Tensor.make(a._tensor._storage, shape2, backend=a.backend)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", float]:
        (original,) = ctx.saved_values
        if not grad_output._tensor.is_contiguous():
            grad_output = grad_output.f.id_map(grad_output)  # contiguous copy
        return (
            minitorch.Tensor.make(grad_output._tensor._storage, original, backend=grad_output.backend),
            0.0,
        )


class Copy(Function):
    """A contiguous copy (identity for the gradient)."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        return a.f.id_map(a)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> "Tensor":
        return grad_output


class MatMul(Function):
    r"""Batched matrix product $C = A B$ over the last two dims (batch dims broadcast).

    $\bar A = \bar C B^\top$, $\bar B = A^\top \bar C$ (transposes of the last two dims).
    """

    @staticmethod
    def forward(ctx: Context, t1: "Tensor", t2: "Tensor") -> "Tensor":
        ctx.save_for_backward(t1, t2)
        return t1.f.matrix_multiply(t1, t2)

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", "Tensor"]:
        t1, t2 = ctx.saved_values

        def transpose(a: "Tensor") -> "Tensor":
            order = list(range(a.dims))
            order[-2], order[-1] = order[-1], order[-2]
            return a._new(a._tensor.permute(*order))

        f = grad_output.f
        return (
            f.matrix_multiply(grad_output, transpose(t2)),
            f.matrix_multiply(transpose(t1), grad_output),
        )


class Embedding(Function):
    """Row lookup: `forward(ctx, weight[V, D], ids[...])` has shape `ids.shape + (D,)`.

    `ids` holds integer values (stored as floats). The backward scatters the
    output gradient into a zero `[V, D]` tensor, *adding* the rows of repeated
    ids; `ids` get no gradient (0.0). Uses NumPy indexing directly (documented
    exception: the backends have no gather/scatter).
    """

    @staticmethod
    def forward(ctx: Context, weight: "Tensor", ids: "Tensor") -> "Tensor":
        if weight.dims != 2:
            raise ValueError(f"Embedding weight must be [V, D], got shape {weight.shape}.")
        raw = ids._tensor.array
        idx = raw.astype(np.int64)
        if not np.array_equal(idx, raw):
            raise ValueError("Embedding ids must hold integer values.")
        vocab = weight.shape[0]
        if idx.size and (idx.min() < 0 or idx.max() >= vocab):
            raise IndexError(f"Embedding ids must be in [0, {vocab}), got [{idx.min()}, {idx.max()}].")
        ctx.save_for_backward(idx, weight.shape)
        return weight._new(_td_from_array(weight._tensor.array[idx]))

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Tuple["Tensor", float]:
        idx, w_shape = ctx.saved_values
        g = np.zeros(w_shape, dtype=np.float64)
        np.add.at(g, idx.reshape(-1), grad_output._tensor.array.reshape(-1, w_shape[1]))
        return grad_output._new(TensorData._from_array(g)), 0.0


def embedding(weight: "Tensor", ids: Any) -> "Tensor":
    """`weight[ids]` as a differentiable lookup (see `Embedding`); `ids` may be a list/array."""
    if not isinstance(ids, minitorch.Tensor):
        ids = tensor(np.asarray(ids, dtype=np.float64), backend=weight.backend)
    return Embedding.apply(weight, ids)


# Factories


def zeros(shape: "UserShape", backend: TensorBackend = FastBackend) -> "Tensor":
    """A constant tensor of zeros."""
    return minitorch.Tensor(
        TensorData._from_array(np.zeros(tuple(int(s) for s in shape), dtype=np.float64)),
        backend=backend,
    )


def ones(shape: "UserShape", backend: TensorBackend = FastBackend) -> "Tensor":
    """A constant tensor of ones."""
    return minitorch.Tensor(
        TensorData._from_array(np.ones(tuple(int(s) for s in shape), dtype=np.float64)),
        backend=backend,
    )


def rand(
    shape: "UserShape", backend: TensorBackend = FastBackend, requires_grad: bool = False
) -> "Tensor":
    """Uniform samples in [0, 1) from Python's `random` module, as the course's `rand`.

    The values of one `random.random()` call per element, in row-major order,
    so `random.seed(s)` makes the values reproducible (the course's seeded tests
    of `Linear` and `Network` depend on exactly this order). Large tensors draw
    them in bulk, bit for bit the same values and the same generator state
    after (`tensor_data._uniform_floats`).
    """
    dims = tuple(int(s) for s in shape)
    size = 1
    for s in dims:
        size *= s
    vals = _uniform_floats(size).reshape(dims)
    t = minitorch.Tensor(TensorData._from_array(vals), backend=backend)
    t.requires_grad_(requires_grad)
    return t


def _tensor(
    ls: Any,
    shape: "UserShape",
    backend: TensorBackend = FastBackend,
    requires_grad: bool = False,
) -> "Tensor":
    """A tensor from flat data `ls` and a `shape`."""
    t = minitorch.Tensor.make(ls, tuple(shape), backend=backend)
    t.requires_grad_(requires_grad)
    return t


def tensor(ls: Any, backend: TensorBackend = FastBackend, requires_grad: bool = False) -> "Tensor":
    """A tensor from nested lists (or a NumPy array, or a number: shape ()).

    `requires_grad=True` makes a leaf (it collects `.grad`); otherwise a constant.
    """
    if isinstance(ls, minitorch.Tensor):
        arr = ls.to_numpy()
    else:
        arr = np.array(ls, dtype=np.float64)
    t = minitorch.Tensor(_td_from_array(arr), backend=backend)
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor_from_numpy(
    ls: Any, backend: TensorBackend = FastBackend, requires_grad: bool = False
) -> "Tensor":
    """The course's helper: a tensor holding a copy of the NumPy array `ls` (its shape kept).

    Stored as `datatype` (float64 here; the course stores float32).
    """
    arr = np.array(ls, dtype=datatype, order="C")
    t = minitorch.Tensor(TensorData._from_array(arr), backend=backend)
    t.requires_grad_(requires_grad)
    return t


def zeros_tensor_from_numpy(shape: "UserShape", backend: TensorBackend = FastBackend) -> "Tensor":
    """The course's helper: a constant tensor of zeros of `shape`."""
    return zeros(shape, backend=backend)


def ones_tensor_from_numpy(shape: "UserShape", backend: TensorBackend = FastBackend) -> "Tensor":
    """The course's helper: a constant tensor of ones of `shape`."""
    return ones(shape, backend=backend)


# Gradient check for tensors


def grad_central_difference(
    f: Any, *vals: "Tensor", arg: int = 0, epsilon: float = 1e-6, ind: "UserIndex"
) -> float:
    r"""Central difference of $\sum f(\ldots)$ with respect to element `ind` of input `arg`."""
    x = vals[arg]
    up = zeros(x.shape, backend=x.backend)
    up[ind] = epsilon
    vals1 = [x if j != arg else x + up for j, x in enumerate(vals)]
    vals2 = [x if j != arg else x - up for j, x in enumerate(vals)]
    delta = f(*vals1).sum() - f(*vals2).sum()
    return delta[0] / (2.0 * epsilon)


def grad_check(f: Any, *vals: "Tensor", tol: float = 1e-6) -> None:
    r"""Assert that backward on `f(*vals).sum()` matches central differences at a random element.

    As the course's (spring 2026) check: a step function (a comparison) has a
    zero gradient but a huge central difference where the step falls between
    $x \pm \epsilon$; when the central difference exceeds 1000 in magnitude and
    the gradient is below 1e-6, the element is accepted. Otherwise the two must
    agree to rtol = atol = 1e-2. (`tol` is accepted for the course's signature
    and unused, as there.) Never imports torch: the central difference is
    computed with minitorch tensors (float64).
    """
    for x in vals:
        x.requires_grad_(True)
        x.zero_grad_()
    random.seed(10)
    out = f(*vals)
    out.sum().backward()
    err_msg = """

Gradient check error for function %s.

Input %s

Received derivative %f for argument %d and index %s,
but was expecting derivative %f from central difference.

"""
    for i, x in enumerate(vals):
        ind = x._tensor.sample()
        check = grad_central_difference(f, *vals, arg=i, ind=ind)
        assert x.grad is not None
        if abs(check) > 1000 and abs(x.grad[ind]) < 1e-6:
            continue  # a step function at its discontinuity: the zero gradient is right
        np.testing.assert_allclose(
            x.grad[ind],
            check,
            1e-2,
            1e-2,
            err_msg=err_msg % (f, vals, x.grad[ind], i, ind, check),
        )


__all__ = [
    "Function",
    "wrap_tuple",
    "Neg",
    "Inv",
    "Add",
    "Mul",
    "PowerScalar",
    "Tanh",
    "Sigmoid",
    "ReLU",
    "Log",
    "Exp",
    "Sum",
    "Mean",
    "All",
    "LT",
    "EQ",
    "IsClose",
    "Permute",
    "View",
    "Copy",
    "MatMul",
    "Embedding",
    "embedding",
    "zeros",
    "ones",
    "rand",
    "_tensor",
    "tensor",
    "tensor_from_numpy",
    "zeros_tensor_from_numpy",
    "ones_tensor_from_numpy",
    "datatype",
    "datasize",
    "grad_central_difference",
    "grad_check",
]
