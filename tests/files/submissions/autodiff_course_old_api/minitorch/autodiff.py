"""Bug: written for an older miniTorch API: `backpropagate` asks each variable's history for a
`backprop_step`, which this framework does not have (AttributeError everywhere). The sort itself walks
`history.inputs` and is right. It crashes; nothing shows a misconception, so none is named."""
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Tuple

from typing_extensions import Protocol


def central_difference(f: Any, *vals: Any, arg: int = 0, epsilon: float = 1e-6) -> Any:
    r"""Central-difference estimate of the derivative of `f` in argument `arg`."""
    up, down = list(vals), list(vals)
    up[arg] += epsilon
    down[arg] -= epsilon
    return (f(*up) - f(*down)) / (2 * epsilon)


variable_count = 1


class Variable(Protocol):
    def accumulate_derivative(self, x: Any) -> None:
        """Add `x` to this leaf's derivative."""

    @property
    def unique_id(self) -> int:
        """Identifier of this variable."""

    def is_leaf(self) -> bool:
        """Created by the user (no `last_fn`)."""

    def is_constant(self) -> bool:
        """Needs no derivative (no history)."""

    @property
    def parents(self) -> Iterable["Variable"]:
        """Inputs of the function that made this variable."""

    def chain_rule(self, d_output: Any) -> Iterable[Tuple["Variable", Any]]:
        """(input, contribution) pairs for this variable's function."""


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    order: List[Variable] = []
    seen = set()
    stack = [(variable, False)]
    while stack:
        var, expanded = stack.pop()
        if var.history is None:
            continue
        if expanded:
            order.append(var)
        elif var.unique_id not in seen:
            seen.add(var.unique_id)
            stack.append((var, True))
            stack.extend((p, False) for p in var.history.inputs if p.unique_id not in seen)
    return order[::-1]
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    queue = [(variable, deriv)]
    for var in topological_sort(variable):
        if var.is_leaf():
            continue
        for parent, d in var.history.backprop_step(deriv):
            queue.append((parent, d))
    for var, d in queue:
        if var.is_leaf():
            var.accumulate_derivative(d)
    # END ASSIGN2_1


@dataclass
class Context:
    """What `forward` stores for `backward`."""

    no_grad: bool = False
    saved_values: Tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        if self.no_grad:
            return
        self.saved_values = values

    @property
    def saved_tensors(self) -> Tuple[Any, ...]:
        return self.saved_values
