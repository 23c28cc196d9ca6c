"""A `tensor_functions.py` written for the llmsys starter runs unchanged on this package.

The grader may swap a student's whole file in for the reference one. The file
below is written the way llmsys students write it (its header, `Function.apply`,
factories defaulting to `SimpleBackend`, typical solutions using `Tensor.make`,
`shape[i]`, `order[i]`, `dim.item()`, `Sum.backward` returning the reduced
gradient, ...). We copy the reference package, swap the file, and check values
and gradients in a child process against the reference package's results.
"""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "minitorch"

LLMSYS_STYLE_TENSOR_FUNCTIONS = '''
from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np

import minitorch

from . import operators
from .autodiff import Context
from .tensor_ops import SimpleBackend, TensorBackend

if TYPE_CHECKING:
    from typing import Any, List, Tuple

    from .tensor import Tensor
    from .tensor_data import UserIndex, UserShape


def wrap_tuple(x):
    if isinstance(x, tuple):
        return x
    return (x,)


class Function:
    @classmethod
    def _backward(cls, ctx, grad_out):
        return wrap_tuple(cls.backward(ctx, grad_out))

    @classmethod
    def _forward(cls, ctx, *inps):
        return cls.forward(ctx, *inps)

    @classmethod
    def apply(cls, *vals):
        raw_vals = []
        need_grad = False
        for v in vals:
            if v.requires_grad():
                need_grad = True
            raw_vals.append(v.detach())
        ctx = Context(not need_grad)
        c = cls._forward(ctx, *raw_vals)
        back = None
        if need_grad:
            back = minitorch.History(cls, ctx, vals)
        return minitorch.Tensor(c._tensor, back, backend=c.backend)


class Neg(Function):
    @staticmethod
    def forward(ctx, t1):
        return t1.f.neg_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.f.neg_map(grad_output)


class Inv(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.inv_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        return grad_output.f.inv_back_zip(t1, grad_output)


class Add(Function):
    @staticmethod
    def forward(ctx, t1, t2):
        return t1.f.add_zip(t1, t2)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.f.mul_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_values
        return grad_output.f.mul_zip(b, grad_output), grad_output.f.mul_zip(a, grad_output)


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.sigmoid_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        sigma = ctx.saved_values[0]
        return sigma * (-sigma + 1.0) * grad_output


class ReLU(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.relu_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_values
        return grad_output.f.relu_back_zip(a, grad_output)


class Log(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.log_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_values
        return grad_output.f.log_back_zip(a, grad_output)


class Exp(Function):
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.exp_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_values
        return grad_output.f.mul_zip(a, grad_output)


class Sum(Function):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a.shape, dim)
        return a.f.add_reduce(a, int(dim.item()))

    @staticmethod
    def backward(ctx, grad_output):
        a_shape, dim = ctx.saved_values
        return grad_output, 0.0


class All(Function):
    @staticmethod
    def forward(ctx, a, dim):
        if dim is not None:
            return a.f.mul_reduce(a, int(dim.item()))
        else:
            return a.f.mul_reduce(a.contiguous().view(int(operators.prod(a.shape))), 0)


class LT(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.lt_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a_shape, b_shape = ctx.saved_values
        return zeros(a_shape), zeros(b_shape)


class EQ(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.eq_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a_shape, b_shape = ctx.saved_values
        return zeros(a_shape), zeros(b_shape)


class IsClose(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a.f.is_close_zip(a, b)


class Permute(Function):
    @staticmethod
    def forward(ctx, a, order):
        ctx.save_for_backward(order)
        return a._new(a._tensor.permute(*[int(order[i]) for i in range(order.size)]))

    @staticmethod
    def backward(ctx, grad_output):
        order = ctx.saved_values[0]
        order2 = [a[0] for a in sorted(enumerate([order[i] for i in range(order.size)]), key=lambda a: a[1])]
        return grad_output._new(grad_output._tensor.permute(*order2)), 0.0


class View(Function):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.save_for_backward(a.shape)
        assert a._tensor.is_contiguous(), "Must be contiguous to view"
        shape2 = [int(shape[i]) for i in range(shape.size)]
        return minitorch.Tensor.make(a._tensor._storage, tuple(shape2), backend=a.backend)

    @staticmethod
    def backward(ctx, grad_output):
        (original,) = ctx.saved_values
        return (
            minitorch.Tensor.make(grad_output._tensor._storage, original, backend=grad_output.backend),
            0.0,
        )


class Copy(Function):
    @staticmethod
    def forward(ctx, a):
        return a.f.id_map(a)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class MatMul(Function):
    @staticmethod
    def forward(ctx, t1, t2):
        ctx.save_for_backward(t1, t2)
        return t1.f.matrix_multiply(t1, t2)

    @staticmethod
    def backward(ctx, grad_output):
        t1, t2 = ctx.saved_values

        def transpose(a):
            order = list(range(a.dims))
            order[-2], order[-1] = order[-1], order[-2]
            return a._new(a._tensor.permute(*order))

        return (
            grad_output.f.matrix_multiply(grad_output, transpose(t2)),
            grad_output.f.matrix_multiply(transpose(t1), grad_output),
        )


class PowerScalar(Function):
    @staticmethod
    def forward(ctx, a, scalar):
        return a.f.pow_scalar_zip(a, scalar)


class Tanh(Function):
    @staticmethod
    def forward(ctx, a):
        return a.f.tanh_map(a)


def zeros(shape, backend=SimpleBackend):
    return minitorch.Tensor.make([0] * int(operators.prod(shape)), shape, backend=backend)


def rand(shape, backend=SimpleBackend, requires_grad=False):
    vals = [random.random() for _ in range(int(operators.prod(shape)))]
    tensor = minitorch.Tensor.make(vals, shape, backend=backend)
    tensor.requires_grad_(requires_grad)
    return tensor


def _tensor(ls, shape, backend=SimpleBackend, requires_grad=False):
    tensor = minitorch.Tensor.make(ls, shape, backend=backend)
    tensor.requires_grad_(requires_grad)
    return tensor


def tensor(ls, backend=SimpleBackend, requires_grad=False):
    def shape(ls):
        if isinstance(ls, (list, tuple)):
            return [len(ls)] + shape(ls[0])
        else:
            return []

    def flatten(ls):
        if isinstance(ls, (list, tuple)):
            return [y for x in ls for y in flatten(x)]
        else:
            return [ls]

    cur = flatten(ls)
    shape2 = shape(ls)
    return _tensor(cur, tuple(shape2), backend=backend, requires_grad=requires_grad)


def tensor_from_numpy(ls, backend=SimpleBackend, requires_grad=False):
    res = _tensor(ls.reshape(-1).tolist(), ls.shape, backend=backend)
    res.requires_grad_(requires_grad)
    return res
'''

PROBE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import minitorch

    B = minitorch.FastBackend
    rng = np.random.default_rng(0)
    xs, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=(5,))
    x = minitorch.Tensor._from_numpy(xs, backend=B, requires_grad=True)
    wt = minitorch.Tensor._from_numpy(w, backend=B, requires_grad=True)
    bt = minitorch.Tensor._from_numpy(b, backend=B, requires_grad=True)
    h = (x.permute(0, 2, 1).permute(0, 2, 1) @ wt + bt).relu()
    h = h.sum(1).view(2, 5).sigmoid() * 2.0 - (h.mean(2).exp() + 1.0).log().sum(1)
    out = (h * (h > 0.3) + (h == h) - 1.0 + 1.0 / (h * h + 1.0)).mean()
    out.backward()
    print(json.dumps({
        "out": out.item(),
        "x": x.grad.to_numpy().tolist(),
        "w": wt.grad.to_numpy().tolist(),
        "b": bt.grad.to_numpy().tolist(),
        "all": x.all().item(),
        "is_close": h.detach().is_close(h.detach() + 0.001).to_numpy().tolist(),
        "tensor_fn": minitorch.tensor([[1.0, 2.0]]).shape,
    }))
    """
)


def run_probe(package_parent: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=package_parent,
        env={"PYTHONPATH": str(package_parent), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_llmsys_style_tensor_functions_file_runs_unchanged(tmp_path):
    reference = run_probe(REFERENCE.parent)
    swapped = tmp_path / "minitorch"
    shutil.copytree(REFERENCE, swapped, ignore=shutil.ignore_patterns("__pycache__"))
    (swapped / "tensor_functions.py").write_text(LLMSYS_STYLE_TENSOR_FUNCTIONS)
    student = run_probe(tmp_path)
    for key in ("out", "x", "w", "b", "all", "is_close"):
        np.testing.assert_allclose(
            np.array(student[key], dtype=float), np.array(reference[key], dtype=float), rtol=1e-12, atol=1e-14
        )
    assert student["tensor_fn"] == reference["tensor_fn"] == [1, 2]
