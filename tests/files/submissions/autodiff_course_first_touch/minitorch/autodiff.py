"""Bug: `topological_sort` is right, but `backpropagate` does not use it: it walks the graph with a stack and
processes each node when it is first reached (first-touch order), so a node can pass its adjoint on before
all of its users have contributed. Contributions that arrive are summed (`+`). Only `not-topological`
applies, not `no-fanout-accumulation`."""
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
    if variable.is_constant():
        return []
    order: deque = deque()
    visited = {variable.unique_id}
    stack = [(variable, iter(()) if variable.is_leaf() else iter(variable.parents))]
    while stack:
        node, pending = stack[-1]
        for parent in pending:
            if parent.is_constant() or parent.unique_id in visited:
                continue
            visited.add(parent.unique_id)
            stack.append((parent, iter(()) if parent.is_leaf() else iter(parent.parents)))
            break
        else:
            stack.pop()
            order.appendleft(node)
    return list(order)
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    stack = [variable]
    reached = {variable.unique_id}
    while stack:
        var = stack.pop()
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if parent.is_constant():
                continue
            derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + d_parent
            if parent.unique_id not in reached:
                reached.add(parent.unique_id)
                stack.append(parent)
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
