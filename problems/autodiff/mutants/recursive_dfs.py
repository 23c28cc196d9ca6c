"""A correct algorithm written as a recursive depth-first search."""

MISCONCEPTION = "recursion-limit"


def topological_sort(variable):
    order, visited = [], set()

    def visit(node):
        if node.unique_id in visited or node.is_constant():
            return
        visited.add(node.unique_id)
        if not node.is_leaf():
            for parent in node.parents:
                visit(parent)
        order.append(node)

    visit(variable)
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
