"""Takes the graph's creation order (a topological order of EVERY node) as the order to run."""

# Appended to the reference mini_tf.py: the other functions are the reference's.

MISCONCEPTION = "evaluates-every-node"


def _topological_order(roots, expand=lambda n: True):
    roots = list(roots)
    if not roots:
        return []
    return roots[0].graph.get_operations()  # nodes are created inputs first
