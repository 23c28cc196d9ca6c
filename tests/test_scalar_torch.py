"""Every Scalar operation against PyTorch in float64: values and derivatives."""

from typing import Callable, Dict, Tuple

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis.strategies import SearchStrategy

from minitorch import Scalar, derivative_check
from strategies import gridded_floats, medium_floats, nonzero_floats, positive_floats, small_floats

SETTINGS = settings(max_examples=50, deadline=None)


def as_torch(v: float) -> torch.Tensor:
    return torch.tensor(v, dtype=torch.float64, requires_grad=True)


def check(ours: Callable, theirs: Callable, *vals: float, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    xs = [Scalar(v) for v in vals]
    txs = [as_torch(v) for v in vals]
    out = ours(*xs)
    tout = theirs(*txs)
    assert isinstance(out, Scalar)
    np.testing.assert_allclose(out.data, float(tout.detach()), rtol=rtol, atol=atol)
    out.backward()
    if tout.requires_grad:
        tout.backward()
    for i, (x, tx) in enumerate(zip(xs, txs)):
        expected = float(tx.grad) if tx.grad is not None else 0.0
        got = x.derivative if x.derivative is not None else 0.0
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=f"derivative of input {i}")


UNARY: Dict[str, Tuple[Callable, Callable, SearchStrategy]] = {
    "neg": (lambda x: -x, lambda x: -x, small_floats),
    "add_const": (lambda x: x + 3.5, lambda x: x + 3.5, small_floats),
    "radd_const": (lambda x: 3.5 + x, lambda x: 3.5 + x, small_floats),
    "sub_const": (lambda x: x - 3.5, lambda x: x - 3.5, small_floats),
    "rsub_const": (lambda x: 3.5 - x, lambda x: 3.5 - x, small_floats),
    "mul_const": (lambda x: x * -2.25, lambda x: x * -2.25, small_floats),
    "rmul_const": (lambda x: -2.25 * x, lambda x: -2.25 * x, small_floats),
    "div_const": (lambda x: x / 7.0, lambda x: x / 7.0, small_floats),
    "rdiv_const": (lambda x: 7.0 / x, lambda x: 7.0 / x, nonzero_floats()),
    "inv": (lambda x: 1.0 / x, lambda x: 1.0 / x, nonzero_floats()),
    "log": (lambda x: x.log(), torch.log, positive_floats),
    "exp": (lambda x: x.exp(), torch.exp, medium_floats),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid, small_floats),
    "relu": (lambda x: x.relu(), torch.relu, gridded_floats() | small_floats),
    "square": (lambda x: x * x, lambda x: x * x, small_floats),
    "lt_const": (lambda x: x < 0.5, lambda x: (x < 0.5).double(), gridded_floats()),
    "gt_const": (lambda x: x > 0.5, lambda x: (x > 0.5).double(), gridded_floats()),
    "eq_const": (lambda x: x == 0.5, lambda x: (x == 0.5).double(), gridded_floats()),
    "composite": (
        lambda x: (x * x + 1.0).log() * (x * 0.5).sigmoid() - (x * 0.1).exp() / (x * x + 2.0),
        lambda x: (x * x + 1.0).log() * torch.sigmoid(x * 0.5) - (x * 0.1).exp() / (x * x + 2.0),
        medium_floats,
    ),
}

BINARY: Dict[str, Tuple[Callable, Callable, SearchStrategy]] = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, small_floats),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, small_floats),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, small_floats),
    "div": (lambda a, b: a / b, lambda a, b: a / b, nonzero_floats()),
    "lt": (lambda a, b: a < b, lambda a, b: (a < b).double(), gridded_floats()),
    "gt": (lambda a, b: a > b, lambda a, b: (a > b).double(), gridded_floats()),
    "eq": (lambda a, b: a == b, lambda a, b: (a == b).double(), gridded_floats()),
    "fan_out": (
        lambda a, b: a + (a * 1.5 + b * 2.0).exp(),
        lambda a, b: a + (a * 1.5 + b * 2.0).exp(),
        medium_floats,
    ),
    "diamond": (
        lambda a, b: (a * b).sigmoid() * (a * b + a).relu() - (a * b) / (b * b + 1.0),
        lambda a, b: torch.sigmoid(a * b) * torch.relu(a * b + a) - (a * b) / (b * b + 1.0),
        medium_floats,
    ),
}


def _unary_test(name: str):
    ours, theirs, numbers = UNARY[name]

    @SETTINGS
    @given(numbers)
    def test(x: float) -> None:
        check(ours, theirs, x)

    return test


def _binary_test(name: str):
    ours, theirs, numbers = BINARY[name]

    @SETTINGS
    @given(numbers, numbers)
    def test(a: float, b: float) -> None:
        check(ours, theirs, a, b)

    return test


for _name in UNARY:
    globals()[f"test_scalar_{_name}"] = _unary_test(_name)
for _name in BINARY:
    globals()[f"test_scalar_binary_{_name}"] = _binary_test(_name)


def test_same_input_twice():
    """x * x: both inputs are the same leaf; its derivative is the sum 2x."""
    check(lambda x: x * x * x, lambda x: x * x * x, 1.7)
    x = Scalar(2.0)
    (x + x + x).backward()
    assert x.derivative == 3.0


def test_constants_are_skipped():
    x = Scalar(2.0)
    c = Scalar(3.0, None)
    (x * c + c).backward()
    assert x.derivative == 3.0 and c.derivative is None


def test_derivative_check_passes_on_composites():
    derivative_check(lambda x, y: (x * y + x.exp()).sigmoid() / (y * y + 1.0), Scalar(0.3), Scalar(-1.1))
