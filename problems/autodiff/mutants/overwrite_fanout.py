"""Correct order, but a node's adjoint is overwritten by its last user instead of summed."""

# Appended to the reference autodiff.py: the other function is the reference's.

MISCONCEPTION = "no-fanout-accumulation"


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints[node.unique_id]
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, dp in node.chain_rule(d):
            if not parent.is_constant():
                adjoints[parent.unique_id] = dp
