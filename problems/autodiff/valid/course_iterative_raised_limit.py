"""Valid: the explicit-stack sort, with a leftover `sys.setrecursionlimit(100000)` (not recursive: no label).

sys.setrecursionlimit is a no-op while grading: a leftover call in an iterative sort costs nothing."""

SCORE = 40.0


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    import sys

    sys.setrecursionlimit(100000)  # left over from a recursive first try
    # The reverse of the post-order of a depth-first search that visits each
    # node's parents in order (the order the course's tests expect). Parents are
    # pushed in reverse so the first parent is popped, and finished, first.
    order: List[Variable] = []
    visited = set()
    stack: List[Tuple[Variable, bool]] = [(variable, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
            continue
        if node.unique_id in visited or node.is_constant():
            continue
        visited.add(node.unique_id)
        stack.append((node, True))
        for parent in reversed(list(node.parents)):
            if parent.unique_id not in visited and not parent.is_constant():
                stack.append((parent, False))
    order.reverse()
    return order
    # END ASSIGN2_1
