"""Buggy, written from scratch: adjoints in a dict keyed by node, seeded at the ys with ones, then one sweep over
`_topological_order(ys)` in the order it comes (inputs first), each node's rule applied if it has an adjoint by
then. The sweep goes the wrong way: reverse mode must start at the ys."""

LABELS = ["order-not-reversed"]
FAILS = ["gradients_given_order"]


def gradients(ys, xs, grad_ys=None, name="gradients"):
    ys, _ = _as_list(ys)
    xs, _ = _as_list(xs)
    graph = ys[0].graph
    seeds = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)[0]
    order = _topological_order(ys)
    depends = set(xs)
    for node in order:
        if any(i in depends for i in node.inputs):
            depends.add(node)
    adjoint = {}
    with graph.name_scope(name):
        for y, seed in zip(ys, seeds):
            if y in depends:
                g = Node("OnesLike", (y,), y.shape, "OnesLike") if seed is None else _as_node(seed, graph)
                adjoint[y] = g if y not in adjoint else add(adjoint[y], g)
        for node in order:
            if node not in adjoint:
                continue
            need = [i in depends for i in node.inputs]
            if not any(need):
                continue
            with graph.name_scope(f"{node.name}_grad"):
                parts = _OPS[node.op_type].grad(node, adjoint[node], need)
            for inp, part, wanted in zip(node.inputs, parts, need):
                if wanted and part is not None:
                    adjoint[inp] = part if inp not in adjoint else add(adjoint[inp], part)
    return [adjoint.get(x) for x in xs]
