"""Bug: first-touch (breadth-first) order: a node is listed as soon as one user reaches it, so it can be
processed before its other users have contributed. The adjoints ARE summed correctly (the `backpropagate` of its
BASE, the valid post-order search). Only `not-topological` applies (not `no-fanout-accumulation`)."""

BASE = "valid/course_postorder"
LABELS = ["not-topological"]
FAILS = ["topological_order_random", "topological_order_scalars"]


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
