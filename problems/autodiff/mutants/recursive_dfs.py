"""A correct algorithm written as a recursive depth-first search."""

# Appended to the reference autodiff.py: the other function is the reference's.

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
