"""Treats constants like any other node: sorts them and hands them derivatives."""

MISCONCEPTION = "constant-not-skipped"


def topological_sort(variable):
    order, visited, stack = [], set(), [(variable, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node.unique_id in visited:
            continue
        visited.add(node.unique_id)
        stack.append((node, True))
        if not node.is_leaf() and not node.is_constant():
            stack.extend((p, False) for p in node.parents)
    return order[::-1]


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints.pop(node.unique_id, 0.0)
        if node.is_leaf() or node.is_constant():
            node.accumulate_derivative(d)
            continue
        for parent, dp in node.chain_rule(d):
            adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + dp
