"""Valid, spring-2026 style: the starter's hint taken literally. A post-order depth-first search with an
explicit stack that visits each node's parents in order and puts every finished node at the FRONT of the
result (so the output comes first). The order the course's own tests expect."""

SCORE = 40.0

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
        else:  # every parent is finished: this node is too
            stack.pop()
            order.appendleft(node)
    return list(order)
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
            if parent.is_constant():
                continue
            if parent.unique_id in derivatives:
                derivatives[parent.unique_id] = derivatives[parent.unique_id] + d_parent
            else:
                derivatives[parent.unique_id] = d_parent
    # END ASSIGN2_1
