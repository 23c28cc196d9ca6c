"""A student whose gradients() returns a constant 0 for an x the ys do not depend on, instead of None (TF1)."""

EXPECT = None
EDITS = [
    ("    return [adjoint.get(x) for x in xs_l]\n", "    return [adjoint.get(x, _as_node(0.0, graph)) for x in xs_l]\n"),
]
