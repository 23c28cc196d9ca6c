"""Bug: returns the DFS pre-order (a node as soon as it is reached), which is not topological."""

EXPECT = "not-topological"


def topological_sort(variable):
    order, seen, stack = [], set(), [variable]
    while stack:
        v = stack.pop()
        if v.unique_id in seen or v.is_constant():
            continue
        seen.add(v.unique_id)
        order.append(v)
        if not v.is_leaf():
            for p in v.parents:
                stack.append(p)
    return order
