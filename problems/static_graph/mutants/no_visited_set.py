"""Post-order DFS without a visited set: a node is listed once per path that reaches it."""

# Appended to the reference mini_tf.py: the other functions are the reference's.

MISCONCEPTION = "reevaluates-shared-nodes"


def _topological_order(roots, expand=lambda n: True):
    order = []
    stack = [(r, False) for r in reversed(list(roots))]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
            continue
        stack.append((node, True))
        if expand(node):
            for inp in reversed(node.inputs):
                stack.append((inp, False))
    return order
