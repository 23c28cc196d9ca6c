"""Returns the DFS post-order itself (inputs first) instead of reversing it."""

# Appended to the reference autodiff.py: the other function is the reference's.

MISCONCEPTION = "order-not-reversed"


def topological_sort(variable):
    order, visited, stack = [], set(), [(variable, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node.unique_id in visited or node.is_constant():
            continue
        visited.add(node.unique_id)
        stack.append((node, True))
        if not node.is_leaf():
            stack.extend((p, False) for p in node.parents if not p.is_constant())
    return order
