"""A correct algorithm whose visited set is a list: every membership test scans it (quadratic time)."""

# Appended to the reference autodiff.py: the other function is the reference's.

MISCONCEPTION = "quadratic-traversal"


def topological_sort(variable):
    order, visited, stack = [], [], [(variable, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node.unique_id in visited or node.is_constant():
            continue
        visited.append(node.unique_id)
        stack.append((node, True))
        if not node.is_leaf():
            stack.extend((p, False) for p in node.parents if not p.is_constant())
    return order[::-1]
