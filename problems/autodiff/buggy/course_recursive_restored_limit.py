"""Buggy: a recursive sort that raises the recursion limit and restores it afterwards (`recursion-limit`).

sys.setrecursionlimit is a no-op while grading: raising (and restoring) it hides no recursion."""

LABELS = ["recursion-limit"]
FAILS = ["deep_chain_3000", "deep_chain_10000", "deep_scalar_chain", "deep_tensor_chain"]
SCORE = 35.0


def topological_sort(variable: Variable) -> Iterable[Variable]:
    """Order the non-constant nodes of the graph of `variable` for backpropagation.

    Args:
        variable: the right-most variable (the output of the computation)

    Returns:
        Every non-constant node reachable from `variable` exactly once, `variable`
        first, each node before all of its parents (a reverse topological order).
        Use a post-order depth-first search with an explicit stack: a recursive
        search dies on graphs deeper than Python's recursion limit (~1000).
    """
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
