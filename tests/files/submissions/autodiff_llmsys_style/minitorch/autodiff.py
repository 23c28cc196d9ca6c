"""Valid: written for the llmsys starter (its given code included), iterative DFS."""
from dataclasses import dataclass
from typing import Any, Iterable, List, Tuple

from typing_extensions import Protocol


def central_difference(f: Any, *vals: Any, arg: int = 0, epsilon: float = 1e-6) -> Any:
    vals1 = [v for v in vals]
    vals2 = [v for v in vals]
    vals1[arg] = vals1[arg] + epsilon
    vals2[arg] = vals2[arg] - epsilon
    delta = f(*vals1) - f(*vals2)
    return delta / (2 * epsilon)


variable_count = 1


class Variable(Protocol):
    def accumulate_derivative(self, x: Any) -> None:
        pass

    @property
    def unique_id(self) -> int:
        pass

    def is_leaf(self) -> bool:
        pass

    def is_constant(self) -> bool:
        pass

    @property
    def parents(self) -> Iterable["Variable"]:
        pass

    def chain_rule(self, d_output: Any) -> Iterable[Tuple["Variable", Any]]:
        pass


def topological_sort(variable: Variable) -> Iterable[Variable]:
    result: List[Variable] = []
    visited = set()
    stack = [(variable, False)]
    while stack:
        var, processed = stack.pop()
        if var.is_constant():
            continue
        if processed:
            result.append(var)
        elif var.unique_id not in visited:
            visited.add(var.unique_id)
            stack.append((var, True))
            if not var.is_leaf():
                for parent in var.parents:
                    if parent.unique_id not in visited:
                        stack.append((parent, False))
    return reversed(result)


def backpropagate(variable: Variable, deriv: Any) -> None:
    order = topological_sort(variable)
    derivatives = {}
    derivatives[variable.unique_id] = deriv
    for var in order:
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
        else:
            for v, dv in var.chain_rule(d):
                if v.is_constant():
                    continue
                if v.unique_id in derivatives:
                    derivatives[v.unique_id] += dv
                else:
                    derivatives[v.unique_id] = dv


@dataclass
class Context:
    no_grad: bool = False
    saved_values: Tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        if self.no_grad:
            return
        self.saved_values = values

    @property
    def saved_tensors(self) -> Tuple[Any, ...]:
        return self.saved_values
