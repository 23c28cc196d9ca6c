"""Bug: first-touch (breadth-first) order: a node is listed as soon as one user reaches it, so it can be
processed before its other users have contributed. The adjoints ARE summed correctly. Only
`not-topological` applies (not `no-fanout-accumulation`)."""
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
    order: List[Variable] = []
    queue = deque([variable])
    seen = {variable.unique_id}
    while queue:
        var = queue.popleft()
        order.append(var)
        if var.is_leaf():
            continue
        for parent in var.parents:
            if not parent.is_constant() and parent.unique_id not in seen:
                seen.add(parent.unique_id)
                queue.append(parent)
    return order
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        d = derivatives.pop(var.unique_id, None)
        if d is None:
            continue
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if not parent.is_constant():
                derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + d_parent
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
