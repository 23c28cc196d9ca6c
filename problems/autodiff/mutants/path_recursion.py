"""Pushes the derivative along every path (no topological order): exponential work on diamonds."""

MISCONCEPTION = "path-recursion"


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
    stack = [(variable, deriv)]
    while stack:
        node, d = stack.pop()
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, dp in node.chain_rule(d):
            if not parent.is_constant():
                stack.append((parent, dp))
