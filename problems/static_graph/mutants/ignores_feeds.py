"""Follows the inputs of every node, fed ones included (`expand` ignored)."""

# Appended to the reference mini_tf.py: the other functions are the reference's.

MISCONCEPTION = "fed-node-recomputed"


def _topological_order(roots, expand=lambda n: True):
    order, state = [], {}
    stack = [(r, False) for r in reversed(list(roots))]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            state[node] = True
            order.append(node)
            continue
        if node in state:
            continue
        state[node] = False
        stack.append((node, True))
        for inp in reversed(node.inputs):
            if inp not in state:
                stack.append((inp, False))
    return order
