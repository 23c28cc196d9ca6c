"""Bug (speed): a correct order, but the adjoints live in two parallel lists searched with `in` and `.index` (quadratic)."""

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Tuple

from typing_extensions import Protocol

# ## Task 1.1
# Central difference calculation


def central_difference(f: Any, *vals: Any, arg: int = 0, epsilon: float = 1e-6) -> Any:
    r"""Approximate $\frac{\partial f}{\partial x_{arg}}$ by a central difference.

    $$f'(x) \approx \frac{f(x + \epsilon) - f(x - \epsilon)}{2\epsilon}$$

    Args:
        f: arbitrary function from n scalar arguments to one value
        *vals: n float values $x_0 \ldots x_{n-1}$
        arg: the number $i$ of the argument to differentiate
        epsilon: a small constant

    Returns:
        An approximation of $f'_i(x_0, \ldots, x_{n-1})$
    """
    up = list(vals)
    down = list(vals)
    up[arg] = up[arg] + epsilon
    down[arg] = down[arg] - epsilon
    return (f(*up) - f(*down)) / (2.0 * epsilon)


variable_count = 1


class Variable(Protocol):
    """A node of the computation graph, as seen by reverse-mode autodiff."""

    def accumulate_derivative(self, x: Any) -> None:
        """Add `x` to the derivative stored on this leaf (`+=`, never `=`)."""

    @property
    def unique_id(self) -> int:
        """An id unique to this node: key the bookkeeping by it (tensors are not hashable)."""

    def is_leaf(self) -> bool:
        """True for a variable created by the user (no `last_fn`)."""

    def is_constant(self) -> bool:
        """True for a node that needs no derivative (no history at all)."""

    @property
    def parents(self) -> Iterable["Variable"]:
        """The inputs of the function that produced this node."""

    def chain_rule(self, d_output: Any) -> Iterable[Tuple["Variable", Any]]:
        r"""Pairs $(x_i, \bar v \cdot \partial v / \partial x_i)$ for every input $x_i$ (constants included)."""



def topological_sort(variable):
    order, seen, stack = [], set(), [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v); continue
        if v.is_constant() or v.unique_id in seen: continue
        seen.add(v.unique_id); stack.append((v, True))
        if not v.is_leaf():
            stack.extend((p, False) for p in v.parents)
    return order[::-1]


def backpropagate(variable, deriv):
    ids, vals = [variable.unique_id], [deriv]
    for v in topological_sort(variable):
        if v.unique_id not in ids: continue
        i = ids.index(v.unique_id); g = vals[i]
        if v.is_leaf():
            v.accumulate_derivative(g); continue
        for p, pd in v.chain_rule(g):
            if p.is_constant(): continue
            if p.unique_id in ids:
                j = ids.index(p.unique_id); vals[j] = vals[j] + pd
            else:
                ids.append(p.unique_id); vals.append(pd)


@dataclass
class Context:
    """What a Function's `forward` saves for its `backward`."""

    no_grad: bool = False
    saved_values: Tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        """Store `values` for the backward pass (nothing is kept under `no_grad`)."""
        if self.no_grad:
            return
        self.saved_values = values

    @property
    def saved_tensors(self) -> Tuple[Any, ...]:
        """The values saved by `save_for_backward` (PyTorch's name)."""
        return self.saved_values
