"""Starts reverse mode from 1.0 whatever `deriv` was passed."""

MISCONCEPTION = "seed-derivative-ignored"


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
    return order[::-1]


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: 1.0}
    for node in topological_sort(variable):
        d = adjoints.pop(node.unique_id, 0.0)
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, dp in node.chain_rule(d):
            if not parent.is_constant():
                adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + dp
