"""Bug: first-touch (breadth-first) order: a node is listed as soon as one user reaches it, so it can be
processed before its other users have contributed. The adjoints ARE summed correctly. Only
`not-topological` applies (not `no-fanout-accumulation`)."""

LABELS = ["not-topological"]
FAILS = ["topological_order_random", "topological_order_scalars"]

from collections import deque


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
