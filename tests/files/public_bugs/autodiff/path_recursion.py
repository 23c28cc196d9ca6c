"""Recursion along every path: right values, but the work doubles with every diamond."""


def backpropagate(variable, deriv):
    def visit(node, d):
        if node.is_constant():
            return
        if node.is_leaf():
            node.accumulate_derivative(d)
            return
        for parent, d_parent in node.chain_rule(d):
            visit(parent, d_parent)

    visit(variable, deriv)
