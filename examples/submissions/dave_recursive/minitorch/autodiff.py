r"""Reverse-mode automatic differentiation on a computation graph (a DAG).

This module never imports Scalar or Tensor: it works on anything that satisfies
the `Variable` protocol, so the same two functions differentiate scalar and
tensor programs.

Reverse mode in one line: visit the nodes so that each node is processed only
after *every* node that uses it, and hand each input the adjoint

$$\bar v_i = \sum_{j \in \mathrm{users}(i)} \bar v_j \frac{\partial v_j}{\partial v_i}.$$
"""

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


def topological_sort(variable: Variable) -> Iterable[Variable]:
    """Order the non-constant nodes of the graph of `variable` for backpropagation.

    Args:
        variable: the right-most variable (the output of the computation)

    Returns:
        Every non-constant node reachable from `variable` exactly once, `variable`
        first, each node before all of its parents (a reverse topological order).
        Use a post-order depth-first search with an explicit stack: a recursive
        search dies on graphs deeper than Python's recursion limit (~1000).
    """
    # BEGIN ASSIGN2_1
    order, visited = [], set()

    def visit(node):
        if node.unique_id in visited or node.is_constant():
            return
        visited.add(node.unique_id)
        for parent in node.parents:
            visit(parent)
        order.append(node)

    visit(variable)
    return list(reversed(order))
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    r"""Run reverse-mode autodiff from `variable` and store leaf derivatives.

    Process the nodes in reverse topological order (`topological_sort`). Keep one
    adjoint per node, keyed by `unique_id`, and *sum* the contributions from all
    of a node's users before the node itself is processed (fan-out). Skip
    constants. Write results only through `accumulate_derivative` on leaves.

    Args:
        variable: the right-most variable
        deriv: its derivative $\partial \mathrm{out} / \partial\,\mathrm{variable}$

    Returns:
        None: leaves get their derivatives through `accumulate_derivative`.
    """
    # BEGIN ASSIGN2_1
    adjoints: Dict[int, Any] = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d_node = adjoints.pop(node.unique_id, None)
        if d_node is None:
            continue
        if node.is_leaf():
            node.accumulate_derivative(d_node)
            continue
        for parent, d_parent in node.chain_rule(d_node):
            if parent.is_constant():
                continue
            if parent.unique_id in adjoints:
                adjoints[parent.unique_id] = adjoints[parent.unique_id] + d_parent
            else:
                adjoints[parent.unique_id] = d_parent
    # END ASSIGN2_1


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
