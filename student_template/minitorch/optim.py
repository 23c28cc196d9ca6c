"""Optimizers: SGD and Adam over a list of Parameters, with the course's semantics.

A step REPLACES each parameter's value: `p.update(new_value)` stores a new
leaf tensor (or Scalar), so the gradient accumulated on the old value is left
behind with it and never carries over to the next step. `zero_grad()` exists
(and clears the current values' gradients) but a loop that never calls it is
still correct, exactly as on the course's framework.

The arithmetic is done in NumPy float64 (the optimizer is never
differentiated), in the course's formula and order of operations.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Sequence

import numpy as np

from .module import Parameter
from .tensor_data import TensorData


def _values(t: Any) -> np.ndarray:
    """A tensor's values as a NumPy array, to read only: a view for a minitorch Tensor (no copy)."""
    data = getattr(t, "_tensor", None)
    return data.array if isinstance(data, TensorData) else t.to_numpy()


def _tensor_grad(p: Parameter) -> Optional[Any]:
    """The gradient of a tensor parameter, or None (no value, a Scalar, or no gradient yet)."""
    v = p.value
    if v is None or not hasattr(v, "grad"):
        return None
    return v.grad


def _replace(p: Parameter, values: np.ndarray) -> None:
    """`p.update` with a NEW tensor holding `values`, on the old value's backend."""
    old = p.value
    new = type(old)._from_numpy(values, backend=old.backend)
    p.update(new)


class Optimizer:
    """Holds the parameters (the course's base class; kept as a list, so a generator works too)."""

    def __init__(self, parameters: Sequence[Parameter]):
        self.parameters = list(parameters)



def _zero_grad(parameters: Sequence[Parameter]) -> None:
    """Forget every current value's gradient (`.grad` / `.derivative` set to None)."""
    for p in parameters:
        v = p.value
        if v is None:
            continue
        if hasattr(v, "derivative") and v.derivative is not None:
            v.derivative = None
        if hasattr(v, "grad") and v.grad is not None:
            v.grad = None


class SGD(Optimizer):
    r"""$\theta \leftarrow \theta - \eta\, g$, written as `p.update(p.value - lr * grad)`."""

    def __init__(self, parameters: Sequence[Parameter], lr: float = 1.0):
        super().__init__(parameters)
        self.lr = lr

    def zero_grad(self) -> None:
        """Forget every current value's gradient (the course's SGD has it; its `Optimizer` base has not)."""
        _zero_grad(self.parameters)

    def step(self) -> None:
        """Replace every parameter that has a gradient by its SGD update."""
        for p in self.parameters:
            v = p.value
            if v is None:
                continue
            if hasattr(v, "derivative"):  # a Scalar (minitorch module 1)
                if v.derivative is not None:
                    p.update(type(v)(v.data - self.lr * v.derivative))
                continue
            grad = _tensor_grad(p)
            if grad is not None:
                _replace(p, _values(v) - self.lr * _values(grad))


class Adam(Optimizer):
    r"""Adam as the course's `optim.py` (spring 2026, after its 2026-01-29 fix):

    $m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t$, $v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2$,
    $\mathrm{step} = \eta \sqrt{1-\beta_2^t} / (1-\beta_1^t)$,
    $\theta_t = \theta_{t-1} - \mathrm{step} \cdot m_t / (\sqrt{v_t} + \epsilon)$.

    State (step count, $m$, $v$) is kept per parameter; a parameter without a
    gradient is skipped (its step count does not advance).
    """

    def __init__(
        self,
        parameters: Sequence[Parameter],
        lr: float = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
    ):
        super().__init__(parameters=parameters)
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.eps = eps
        self._states: Dict[int, Dict[str, Any]] = {id(p): {} for p in self.parameters}

    def zero_grad(self) -> None:
        """Forget every current value's gradient (the course's Adam has it from spring 2025 on)."""
        _zero_grad(self.parameters)

    def step(self) -> None:
        """Replace every tensor parameter that has a gradient by its Adam update."""
        for p in self.parameters:
            grad = _tensor_grad(p)
            if grad is None:
                continue
            g = _values(grad)
            state = self._states.setdefault(id(p), {})
            if not state:
                state["step"] = 0
                state["exp_avg"] = np.zeros(g.shape)
                state["exp_avg_sq"] = np.zeros(g.shape)
            state["step"] += 1
            state["exp_avg"] = state["exp_avg"] * self.beta1 + (1 - self.beta1) * g
            state["exp_avg_sq"] = state["exp_avg_sq"] * self.beta2 + (1 - self.beta2) * g**2
            denom = np.sqrt(state["exp_avg_sq"]) + self.eps
            bias_correction1 = 1.0 - self.beta1 ** state["step"]
            bias_correction2 = 1.0 - self.beta2 ** state["step"]
            step_size = self.lr * math.sqrt(bias_correction2) / bias_correction1
            _replace(p, _values(p.value) - step_size * state["exp_avg"] / denom)


__all__ = ["Optimizer", "SGD", "Adam"]
