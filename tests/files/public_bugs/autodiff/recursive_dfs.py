"""A recursive depth-first search: one nested call per node, RecursionError beyond ~1000 nodes deep."""


def topological_sort(variable):
    order, visited = [], set()

    def visit(node):
        if node.unique_id in visited or node.is_constant():
            return
        visited.add(node.unique_id)
        for parent in node.parents:
            visit(parent)
        order.append(node)

    visit(variable)
    return list(reversed(order))
