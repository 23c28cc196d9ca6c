"""Pushes the derivative along every path (no topological order): exponential work on diamonds."""

# Appended to the reference autodiff.py: the other function is the reference's.

MISCONCEPTION = "path-recursion"


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
