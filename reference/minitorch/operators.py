"""Scalar maths: the elementary functions and their local derivatives.

Every tensor backend maps these functions over storage, so they are the single
source of truth for the forward values of the framework.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, List

EPS = 1e-6


def mul(x: float, y: float) -> float:
    """$f(x, y) = x y$"""
    return x * y


def id(x: float) -> float:  # noqa: A001 - the lecture's name
    """$f(x) = x$"""
    return x


def add(x: float, y: float) -> float:
    """$f(x, y) = x + y$"""
    return x + y


def neg(x: float) -> float:
    """$f(x) = -x$"""
    return -x


def lt(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x < y$ else $0$"""
    return 1.0 if x < y else 0.0


def eq(x: float, y: float) -> float:
    """$f(x, y) = 1$ if $x = y$ else $0$"""
    return 1.0 if x == y else 0.0


def max(x: float, y: float) -> float:  # noqa: A001 - the lecture's name
    """$f(x, y) = x$ if $x > y$ else $y$"""
    return x if x > y else y


def is_close(x: float, y: float) -> float:
    """$f(x, y) = |x - y| < 10^{-2}$, written as the course writes it:
    `(x - y < 1e-2) and (y - x < 1e-2)`.

    On floats the result is a bool (True/False, equal to 1.0/0.0). It uses only
    `-`, `<` and `and`, so it also accepts Tensors, as the course's tests do
    (`operators.is_close(tensor, tensor)`): the result is then a Tensor (and,
    a Tensor having no truth value of its own, always truthy).
    """
    return (x - y < 1e-2) and (y - x < 1e-2)


def pow(x: float, y: float) -> float:  # noqa: A001 - the course's name
    """$f(x, y) = x^y$ (Python's `x ** y`)"""
    return x**y


def tanh(x: float) -> float:
    r"""$f(x) = \tanh x$"""
    return math.tanh(x)


def sigmoid(x: float) -> float:
    r"""$\sigma(x) = \frac{1}{1 + e^{-x}}$, computed without overflow for either sign."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def relu(x: float) -> float:
    """$f(x) = x$ if $x > 0$ else $0$"""
    return x if x > 0 else 0.0


def log(x: float) -> float:
    r"""$f(x) = \log x$"""
    return math.log(x)


def exp(x: float) -> float:
    """$f(x) = e^x$"""
    return math.exp(x)


def log_back(x: float, d: float) -> float:
    r"""$d \cdot \frac{\partial}{\partial x}\log x = d / x$"""
    return d / x


def inv(x: float) -> float:
    """$f(x) = 1/x$"""
    return 1.0 / x


def inv_back(x: float, d: float) -> float:
    r"""$d \cdot \frac{\partial}{\partial x} \frac1x = -d / x^2$"""
    return -d / (x * x)


def relu_back(x: float, d: float) -> float:
    r"""$d \cdot \frac{\partial}{\partial x}\mathrm{relu}(x) = d$ if $x > 0$ else $0$"""
    return d if x > 0 else 0.0


def sigmoid_back(x: float, d: float) -> float:
    r"""$d \cdot \sigma(x)(1 - \sigma(x))$"""
    s = sigmoid(x)
    return d * s * (1.0 - s)


# Higher-order helpers (the functional-programming warm-up of the course).


def map(fn: Callable[[float], float]) -> Callable[[Iterable[float]], List[float]]:  # noqa: A001
    """Return the function that applies `fn` to every element of a list."""
    return lambda ls: [fn(x) for x in ls]


def zipWith(  # noqa: N802 - the lecture's name
    fn: Callable[[float, float], float]
) -> Callable[[Iterable[float], Iterable[float]], List[float]]:
    """Return the function that combines two lists elementwise with `fn`."""
    return lambda xs, ys: [fn(x, y) for x, y in zip(xs, ys)]


def reduce(
    fn: Callable[[float, float], float], start: float
) -> Callable[[Iterable[float]], float]:
    r"""Return the function computing $fn(x_n, \ldots fn(x_1, start))$ left to right."""

    def _reduce(ls: Iterable[float]) -> float:
        acc = start
        for x in ls:
            acc = fn(acc, x)
        return acc

    return _reduce


def negList(ls: Iterable[float]) -> List[float]:  # noqa: N802
    """Negate every element."""
    return map(neg)(ls)


def addLists(ls1: Iterable[float], ls2: Iterable[float]) -> List[float]:  # noqa: N802
    """Add two lists elementwise."""
    return zipWith(add)(ls1, ls2)


def sum(ls: Iterable[float]) -> float:  # noqa: A001
    """Sum of a list (0 for the empty list)."""
    return reduce(add, 0.0)(ls)


def prod(ls: Iterable[float]) -> float:
    """Product of a list (1 for the empty list)."""
    return reduce(mul, 1.0)(ls)
