"""Starts reverse mode from 1.0 whatever `deriv` was passed."""

# Appended to the reference autodiff.py: the other function is the reference's.

MISCONCEPTION = "seed-derivative-ignored"


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
