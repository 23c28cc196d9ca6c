"""A student whose gradients() always starts reverse mode from ones, ignoring grad_ys."""

EXPECT = None
EDITS = [
    ("""\
        for y, gy in zip(ys_l, grad_ys_l):
            if y not in on_path:
                continue
            if gy is None:
                seed = Node("OnesLike", (y,), y.shape, "OnesLike")
            else:
                seed = _as_node(gy, graph)
""", """\
        for y in ys_l:
            if y not in on_path:
                continue
            seed = Node("OnesLike", (y,), y.shape, "OnesLike")  # dy/dy = 1
"""),
]
