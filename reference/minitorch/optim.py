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

import itertools
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .module import Parameter
from .tensor import Tensor
from .tensor_data import TensorData, _td_from_array


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
    """`p.update` with a NEW tensor holding `values` (a float64 array the optimizer just computed, so the
    tensor holds it itself unless it must be made C-contiguous), on the old value's backend."""
    old = p.value
    if type(old) is Tensor:
        new = Tensor(_td_from_array(values), None, None, old.backend)
    else:
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


class _FlatGroup:
    """Parameters whose Adam moments were made together, updated as one vector.

    `exp_avg`, `exp_avg_sq`: the moments of all of them, flat; each parameter's `_states`
    arrays are pieces of these (`pieces`: (slice, shape) per parameter, in order), updated
    in place so that they stay its state. `values`: the last new values computed for them,
    flat, whose pieces `views` the parameters' new tensors hold (while they still do, the
    next step reads `values` instead of concatenating the parameters again).
    """

    __slots__ = ("exp_avg", "exp_avg_sq", "pieces", "values", "views")

    def __init__(self, shapes: Sequence[Tuple[int, ...]]):
        ends = list(itertools.accumulate(math.prod(shape) for shape in shapes))
        self.exp_avg, self.exp_avg_sq = np.zeros(ends[-1]), np.zeros(ends[-1])
        self.pieces = [(slice(end - math.prod(shape), end), shape) for shape, end in zip(shapes, ends)]
        self.values: Optional[np.ndarray] = None
        self.views: List[np.ndarray] = []


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
        #: ids of parameters whose moments were made together (in order) -> their `_FlatGroup`
        self._flat: Dict[Tuple[int, ...], _FlatGroup] = {}

    def zero_grad(self) -> None:
        """Forget every current value's gradient (the course's Adam has it from spring 2025 on)."""
        _zero_grad(self.parameters)

    def step(self) -> None:
        """Replace every tensor parameter that has a gradient by its Adam update.

        Parameters at the same step count share the step size; those whose moments were
        created together (normally all of them) are updated as one concatenated vector,
        with the same floating-point operations, element by element, as one at a time.
        """
        ready: Dict[int, Tuple[Parameter, Any]] = {}
        for p in self.parameters:  # a Parameter listed twice is updated once (its new value has no gradient)
            if id(p) not in ready:
                grad = _tensor_grad(p)
                if grad is not None:
                    ready[id(p)] = (p, grad)
        states = self._states
        fresh = [pg for key, pg in ready.items() if not states.setdefault(key, {})]
        if fresh:
            self._init_states(fresh)
        by_step: Dict[int, Dict[int, Tuple[Parameter, Any]]] = {}
        for key, pg in ready.items():
            state = states[key]
            state["step"] += 1
            by_step.setdefault(state["step"], {})[key] = pg
        new_values: Dict[int, np.ndarray] = {}
        for step, group in by_step.items():
            new_values.update(self._update_group(group, step))
        for key, (p, _) in ready.items():  # new tensors in the parameters' order
            _replace(p, new_values[key])

    def _init_states(self, fresh: Sequence[Tuple[Parameter, Any]]) -> None:
        """Zero moments for parameters seen for the first time: pieces of one new `_FlatGroup`."""
        flat = _FlatGroup([_values(grad).shape for _, grad in fresh])
        for (p, _), (piece, shape) in zip(fresh, flat.pieces):
            self._states[id(p)].update(step=0, exp_avg=flat.exp_avg[piece].reshape(shape),
                                       exp_avg_sq=flat.exp_avg_sq[piece].reshape(shape))
        self._flat[tuple(id(p) for p, _ in fresh)] = flat

    def _update_group(self, group: Dict[int, Tuple[Parameter, Any]], step: int) -> Dict[int, np.ndarray]:
        """The new values (by parameter id) of the parameters in `group` ({id: (parameter, gradient)}, in
        the parameters' order), which all reach step count `step`."""
        bias_correction1 = 1.0 - self.beta1**step
        bias_correction2 = 1.0 - self.beta2**step
        step_size = self.lr * math.sqrt(bias_correction2) / bias_correction1
        flat = self._flat.get(tuple(group)) if len(group) > 1 else None
        if flat is None:
            out = {}
            for key, (p, grad) in group.items():
                state = self._states[key]
                out[key] = self._update_arrays(state["exp_avg"], state["exp_avg_sq"], _values(grad),
                                               _values(p.value), step_size)
            return out
        grads = np.concatenate([_values(grad).reshape(-1) for _, grad in group.values()])
        if flat.values is not None and all(_values(p.value) is v for (p, _), v in zip(group.values(), flat.views)):
            values = flat.values  # each parameter still holds its piece of the last result
        else:
            values = np.concatenate([_values(p.value).reshape(-1) for p, _ in group.values()])
        flat.values = self._update_arrays(flat.exp_avg, flat.exp_avg_sq, grads, values, step_size)
        out = {key: flat.values[piece].reshape(shape) for key, (piece, shape) in zip(group, flat.pieces)}
        flat.views = list(out.values())
        return out

    def _update_arrays(self, exp_avg: np.ndarray, exp_avg_sq: np.ndarray, g: np.ndarray, value: np.ndarray,
                       step_size: float) -> np.ndarray:
        """The course's update on arrays: the moments in place, and the new value returned.

        m = m * beta1 + (1 - beta1) * g;  v = v * beta2 + (1 - beta2) * g**2;
        value - step_size * m / (sqrt(v) + eps), each operation as written (elementwise, so the
        same on a concatenation of parameters as on each one).
        """
        np.multiply(exp_avg, self.beta1, out=exp_avg)
        exp_avg += (1 - self.beta1) * g
        np.multiply(exp_avg_sq, self.beta2, out=exp_avg_sq)
        exp_avg_sq += (1 - self.beta2) * g**2
        denom = np.sqrt(exp_avg_sq) + self.eps
        return value - step_size * exp_avg / denom


__all__ = ["Optimizer", "SGD", "Adam"]
