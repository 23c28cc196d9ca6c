"""Adjoints overwritten instead of summed: a node with several users keeps only the last contribution."""


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints[node.unique_id]
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, d_parent in node.chain_rule(d):
            if not parent.is_constant():
                adjoints[parent.unique_id] = d_parent
