"""Bug: a right reverse topological order, but a parent's adjoint is assigned (`=`) instead of summed over
its users. Only `no-fanout-accumulation` applies."""

LABELS = ["no-fanout-accumulation"]
PASSES = ["topological_order_random", "topological_order_scalars"]
FAILS = ["fan_out"]

from collections import deque


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
    for var in topological_sort(variable):
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if not parent.is_constant():
                derivatives[parent.unique_id] = d_parent
    # END ASSIGN2_1
