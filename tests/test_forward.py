"""Forward mode (dual numbers) against reverse mode (Scalar.backward) and the lecture's numbers."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minitorch import operators
from minitorch.autodiff import central_difference
from minitorch.forward import Dual, derivative, gradient, jvp
from minitorch.scalar import Scalar


def slides_example(x1, x2):
    """f = x1 + exp(1.5 x1 + 2 x2), written once for Scalars and Duals."""
    return x1 + (x1 * 1.5 + x2 * 2.0).exp()


def test_slides_example_forward_mode():
    d1 = derivative(slides_example, 3.0, 0.5, arg=0)
    d2 = derivative(slides_example, 3.0, 0.5, arg=1)
    np.testing.assert_allclose([d1, d2], [368.0378983963, 489.3838645284], rtol=0, atol=1e-9)
    value, _ = jvp(slides_example, [3.0, 0.5], [1.0, 0.0])
    np.testing.assert_allclose(value, 3.0 + math.exp(5.5), rtol=1e-15)


def test_jvp_is_gradient_dot_direction():
    t = [0.3, -2.0]
    _, d = jvp(slides_example, [3.0, 0.5], t)
    np.testing.assert_allclose(d, 368.0378983963 * t[0] + 489.3838645284 * t[1], rtol=1e-12)
    np.testing.assert_allclose(
        gradient(slides_example, 3.0, 0.5), [368.0378983963, 489.3838645284], rtol=0, atol=1e-9
    )


def test_sigmoid_quiz_graph():
    """v7 = sigmoid(v1 * v2): dv7/dv1 = sigma(1 - sigma) v2, dv7/dv2 = sigma(1 - sigma) v1."""
    v1, v2 = 0.7, -1.3
    s = 1.0 / (1.0 + math.exp(-(v1 * v2)))

    def f(a, b):
        return (a * b).sigmoid()

    fwd = gradient(f, v1, v2)
    np.testing.assert_allclose(fwd, [s * (1 - s) * v2, s * (1 - s) * v1], rtol=1e-12)
    a, b = Scalar(v1), Scalar(v2)
    f(a, b).backward()
    np.testing.assert_allclose(fwd, [a.derivative, b.derivative], rtol=1e-12)


def test_product_rule_is_the_dual_product():
    x = Dual(2.0, 3.0) * Dual(5.0, 7.0)  # (a + b eps)(c + d eps) = ac + (ad + bc) eps
    assert (x.primal, x.tangent) == (10.0, 2.0 * 7.0 + 3.0 * 5.0)
    q = Dual(2.0, 3.0) / Dual(5.0, 7.0)
    np.testing.assert_allclose([q.primal, q.tangent], [0.4, (3 * 5 - 2 * 7) / 25], rtol=1e-15)


def test_constants_and_comparisons():
    x = Dual(2.0, 1.0)
    assert (3.0 - x).tangent == -1.0 and (1.0 / x).tangent == -0.25 and (-x).tangent == -1.0
    lt, gt, eq = x < 3.0, x > 3.0, x == Dual(2.0, 9.0)
    assert type(lt) is float and type(gt) is float and type(eq) is float
    assert (lt, gt, eq) == (1.0, 0.0, 1.0)
    assert Dual(0.0, 5.0).relu().tangent == 0.0 and Dual(1e-3, 5.0).relu().tangent == 5.0
    with pytest.raises(ValueError):
        jvp(slides_example, [1.0, 2.0], [1.0])


# Random programs over all operations ---------------------------------------
#
# A program is a list of instructions over a growing pool of values that starts
# with the inputs; every instruction reads earlier values (so fan-out is common).
# Domain-restricted ops are wrapped so that they stay defined and bounded:
# log(v*v + 0.5), a / (b*b + 1), exp(v / (1 + v*v)).

UNARY = ["neg", "exp", "log", "sigmoid", "relu"]
BINARY = ["add", "sub", "mul", "div", "radd", "rmul", "rsub", "rdiv"]


def run_program(program, inputs):
    pool = list(inputs)
    for op, i, j, c in program:
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        if op == "neg":
            v = -a
        elif op == "exp":
            v = (a / (a * a + 1.0)).exp()
        elif op == "log":
            v = (a * a + 0.5).log()
        elif op == "sigmoid":
            v = a.sigmoid()
        elif op == "relu":
            v = a.relu()
        elif op == "add":
            v = a + b
        elif op == "sub":
            v = a - b
        elif op == "mul":
            v = a * b
        elif op == "div":
            v = a / (b * b + 1.0)
        elif op == "radd":
            v = c + a
        elif op == "rmul":
            v = c * a
        elif op == "rsub":
            v = c - a
        else:  # rdiv
            v = c / (a * a + 1.0)
        pool.append(v)
    # the output uses the last value and, to involve every input, the others too
    out = pool[-1]
    for k in range(len(inputs)):
        out = out + pool[k] * 0.25
    return out


small = st.floats(-2.0, 2.0, allow_nan=False)
instruction = st.tuples(
    st.sampled_from(UNARY + BINARY), st.integers(0, 50), st.integers(0, 50), small
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(small, min_size=1, max_size=4),
    st.lists(instruction, min_size=1, max_size=12),
)
def test_forward_mode_equals_reverse_mode(inputs, program):
    scalars = [Scalar(x) for x in inputs]
    out = run_program(program, scalars)
    out.backward()
    reverse = [s.derivative if s.derivative is not None else 0.0 for s in scalars]

    forward = gradient(lambda *xs: run_program(program, xs), *inputs)
    value, _ = jvp(lambda *xs: run_program(program, xs), inputs, [0.0] * len(inputs))
    np.testing.assert_allclose(value, out.data, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(forward, reverse, rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
def test_forward_mode_matches_central_difference(x, y):
    def f(a, b):
        return (a * b).sigmoid() * (a * a + 1.0).log() - (b / (a * a + 2.0)).exp()

    for arg in (0, 1):
        exact = derivative(f, x, y, arg=arg)
        approx = central_difference(lambda *v: f(*(Dual(u) for u in v)).primal, x, y, arg=arg)
        np.testing.assert_allclose(exact, approx, rtol=1e-5, atol=1e-6)


def test_tangents_use_the_operators_back_functions():
    for x in (-1.5, 0.2, 3.0):
        np.testing.assert_allclose(Dual(x, 2.0).sigmoid().tangent, operators.sigmoid_back(x, 2.0))
        np.testing.assert_allclose(Dual(x * x, 2.0).log().tangent, operators.log_back(x * x, 2.0))
        np.testing.assert_allclose(Dual(x, 2.0).exp().tangent, 2.0 * math.exp(x), rtol=1e-15)
