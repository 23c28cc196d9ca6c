"""Optimizers: SGD and Adam over a list of Parameters."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .module import Parameter


def _grad(p: Parameter) -> Any:
    """The accumulated gradient of a parameter (Tensor `.grad` or Scalar `.derivative`)."""
    v = p.value
    if hasattr(v, "derivative"):
        return v.derivative
    return getattr(v, "grad", None)


def _write(p: Parameter, values: np.ndarray) -> None:
    """Update a tensor parameter IN PLACE (like PyTorch): the same leaf, its `.grad` untouched.

    So gradients really do accumulate across steps unless the loop clears them.
    """
    p.value._tensor.array[...] = values


class Optimizer:
    """Holds the parameters; `step()` updates them in place, `zero_grad()` clears their gradients."""

    def __init__(self, parameters: Sequence[Parameter]):
        self.parameters = list(parameters)

    def zero_grad(self) -> None:
        """Clear every parameter's gradient (leaves accumulate with +=)."""
        for p in self.parameters:
            v = p.value
            if v is None:
                continue
            if hasattr(v, "derivative"):
                v.derivative = None
            if hasattr(v, "grad"):
                v.grad = None


class SGD(Optimizer):
    r"""$\theta \leftarrow \theta - \eta\, g$"""

    def __init__(self, parameters: Sequence[Parameter], lr: float = 1.0):
        super().__init__(parameters)
        self.lr = lr

    def step(self) -> None:
        for p in self.parameters:
            g = _grad(p)
            if g is None:
                continue
            if hasattr(p.value, "derivative"):
                p.value.data = p.value.data - self.lr * float(g)
            else:
                _write(p, p.value.to_numpy() - self.lr * g.to_numpy())


class Adam(Optimizer):
    r"""Adam (Kingma & Ba), with bias correction:

    $m_t = \beta_1 m_{t-1} + (1-\beta_1) g_t$, $v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2$,
    $\theta_t = \theta_{t-1} - \eta\, \hat m_t / (\sqrt{\hat v_t} + \epsilon)$ with
    $\hat m_t = m_t / (1-\beta_1^t)$, $\hat v_t = v_t / (1-\beta_2^t)$.

    The arithmetic follows torch.optim.Adam's order of operations so both agree to
    rounding. State is kept as NumPy arrays (the optimizer is not differentiated).
    """

    def __init__(
        self,
        parameters: Sequence[Parameter],
        lr: float = 1e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ):
        super().__init__(parameters)
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.state: Dict[int, Dict[str, Any]] = {}

    def step(self) -> None:
        for p in self.parameters:
            g = _grad(p)
            if g is None or hasattr(p.value, "derivative"):
                continue
            grad = g.to_numpy()
            state = self.state.setdefault(id(p), {"step": 0, "m": np.zeros_like(grad), "v": np.zeros_like(grad)})
            state["step"] += 1
            t = state["step"]
            m, v = state["m"], state["v"]
            m *= self.beta1
            m += (1 - self.beta1) * grad
            v *= self.beta2
            v += (1 - self.beta2) * grad * grad
            bias1 = 1 - self.beta1**t
            bias2 = 1 - self.beta2**t
            step_size = self.lr / bias1
            denom = np.sqrt(v) / math.sqrt(bias2) + self.eps
            _write(p, p.value.to_numpy() - step_size * (m / denom))
