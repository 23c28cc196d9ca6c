"""Constants are sorted and propagated into like any other node."""


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
        for parent in node.parents:
            stack.append((parent, False))
    return list(reversed(order))


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints.pop(node.unique_id, 0.0)
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, d_parent in node.chain_rule(d):
            adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + d_parent
