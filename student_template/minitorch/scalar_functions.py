"""Functions on Scalars: each knows its forward value and its local chain rule.

A `ScalarFunction` computes on plain floats; `apply` wraps the result in a
`Scalar` whose history records the function, its context and its inputs, so
that `autodiff.backpropagate` can later call `backward`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Tuple

from . import operators
from .autodiff import Context

if TYPE_CHECKING:
    from .scalar import Scalar, ScalarLike


def wrap_tuple(x: Any) -> Tuple[Any, ...]:
    """Turn a single value into a 1-tuple; leave tuples alone."""
    if isinstance(x, tuple):
        return x
    return (x,)


class ScalarFunction:
    """A differentiable function of floats; subclasses define forward/backward."""

    @classmethod
    def _backward(cls, ctx: Context, d_out: float) -> Tuple[float, ...]:
        return wrap_tuple(cls.backward(ctx, d_out))  # type: ignore[attr-defined]

    @classmethod
    def _forward(cls, ctx: Context, *inps: float) -> float:
        return cls.forward(ctx, *inps)  # type: ignore[attr-defined]

    @classmethod
    def apply(cls, *vals: "ScalarLike") -> "Scalar":
        """Compute the function on Scalars (or floats, treated as constants)."""
        from .scalar import Scalar, ScalarHistory

        scalars = [v if isinstance(v, Scalar) else Scalar(v, None) for v in vals]
        need_grad = any(not s.is_constant() for s in scalars)
        ctx = Context(not need_grad)
        c = cls._forward(ctx, *(s.data for s in scalars))
        assert isinstance(c, float), f"Expected return type float got {type(c)}"
        if not need_grad:
            return Scalar(c, None)
        return Scalar(c, ScalarHistory(cls, ctx, tuple(scalars)))


class Add(ScalarFunction):
    """$f(x, y) = x + y$"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        return float(a + b)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, ...]:
        return d_output, d_output


class Log(ScalarFunction):
    r"""$f(x) = \log x$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        ctx.save_for_backward(a)
        return operators.log(a)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (a,) = ctx.saved_values
        return operators.log_back(a, d_output)


class Mul(ScalarFunction):
    """$f(x, y) = x y$"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        ctx.save_for_backward(a, b)
        return float(operators.mul(a, b))

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        a, b = ctx.saved_values
        return b * d_output, a * d_output


class Inv(ScalarFunction):
    """$f(x) = 1/x$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        ctx.save_for_backward(a)
        return operators.inv(a)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (a,) = ctx.saved_values
        return operators.inv_back(a, d_output)


class Neg(ScalarFunction):
    """$f(x) = -x$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        return float(operators.neg(a))

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        return -d_output


class Sigmoid(ScalarFunction):
    r"""$\sigma(x) = 1 / (1 + e^{-x})$, with $\sigma' = \sigma (1 - \sigma)$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        out = operators.sigmoid(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (out,) = ctx.saved_values
        return d_output * out * (1.0 - out)


class ReLU(ScalarFunction):
    """$f(x) = \\max(x, 0)$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        ctx.save_for_backward(a)
        return float(operators.relu(a))

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (a,) = ctx.saved_values
        return operators.relu_back(a, d_output)


class Exp(ScalarFunction):
    """$f(x) = e^x$"""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        out = operators.exp(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (out,) = ctx.saved_values
        return d_output * out


class LT(ScalarFunction):
    """$f(x, y) = 1$ if $x < y$ else $0$ (derivative 0 almost everywhere)"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        return operators.lt(a, b)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        return 0.0, 0.0


class EQ(ScalarFunction):
    """$f(x, y) = 1$ if $x = y$ else $0$ (derivative 0 almost everywhere)"""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        return operators.eq(a, b)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        return 0.0, 0.0
