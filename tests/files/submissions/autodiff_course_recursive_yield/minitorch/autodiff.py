"""Bug (deep graphs only): a recursive generator (`yield from` per parent), reversed at the end, and an
otherwise right `backpropagate` with a defaultdict of adjoints. Only `recursion-limit` applies."""
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
    done = set()

    def visit(node: Variable) -> Iterable[Variable]:
        if node.is_constant() or node.unique_id in done:
            return
        if not node.is_leaf():
            for parent in node.parents:
                yield from visit(parent)
        if node.unique_id not in done:
            done.add(node.unique_id)
            yield node

    return list(visit(variable))[::-1]
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    adjoints: Dict[int, Any] = defaultdict(lambda: 0.0)
    adjoints[variable.unique_id] = deriv
    for var in topological_sort(variable):
        if var.is_leaf():
            var.accumulate_derivative(adjoints[var.unique_id])
            continue
        for parent, d in var.chain_rule(adjoints[var.unique_id]):
            if not parent.is_constant():
                adjoints[parent.unique_id] = adjoints[parent.unique_id] + d
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
