"""A correct algorithm whose visited set is a list: every membership test scans it (quadratic time)."""

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


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints.pop(node.unique_id, 0.0)
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, dp in node.chain_rule(d):
            if not parent.is_constant():
                adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + dp
