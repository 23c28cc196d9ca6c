"""Recursive depth-first search for the topological order (one Python frame per node on the path)."""

# Appended to the reference mini_tf.py: the other functions are the reference's.

MISCONCEPTION = "recursion-limit"


def _topological_order(roots, expand=lambda n: True):
    order, seen = [], set()

    def visit(node):
        if node in seen:
            return
        seen.add(node)
        if expand(node):
            for inp in node.inputs:
                visit(inp)
        order.append(node)

    for r in roots:
        visit(r)
    return order
