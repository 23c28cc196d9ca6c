"""Buggy: a recursive sort that raises the recursion limit and restores it afterwards (`recursion-limit`).

sys.setrecursionlimit is a no-op while grading: raising (and restoring) it hides no recursion."""

LABELS = ["recursion-limit"]
FAILS = ["deep_chain_3000", "deep_chain_10000", "deep_scalar_chain", "deep_tensor_chain"]
SCORE = 35.0


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    order, visited = [], set()

    def visit(node):
        if node.unique_id in visited or node.is_constant():
            return
        visited.add(node.unique_id)
        for parent in node.parents:
            visit(parent)
        order.append(node)

    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100000)  # "so that deep graphs work", restored afterwards
    try:
        visit(variable)
    finally:
        sys.setrecursionlimit(old)
    return order[::-1]
    # END ASSIGN2_1
