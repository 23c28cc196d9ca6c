"""Buggy: reverse mode with an explicit stack of (node, adjoint) pairs: each contribution is pushed and carried on
down on its own, so the sums are right and the depth is no problem, but a node is handled once per path that
reaches it (2^k times below k diamonds)."""

LABELS = ["path-recursion"]
FAILS = ["gradients_work"]


def gradients(ys, xs, grad_ys=None, name="gradients"):
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    seeds = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]
    order = _topological_order(ys_l)
    on_path = set()
    for n in order:
        if n in xs_l or any(i in on_path for i in n.inputs):
            on_path.add(n)
    received = {}
    with graph.name_scope(name):
        pending = [(y, Node("OnesLike", (y,), y.shape, "OnesLike") if s is None else _as_node(s, graph))
                   for y, s in zip(ys_l, seeds) if y in on_path]
        while pending:
            n, g = pending.pop()
            received.setdefault(n, []).append(g)
            need = [i in on_path for i in n.inputs]
            if not any(need):
                continue
            with graph.name_scope(f"{n.name}_grad"):
                parts = _OPS[n.op_type].grad(n, g, need)
            pending.extend((i, p) for i, p, w in zip(n.inputs, parts, need) if w and p is not None)
    return [None if x not in received else received[x][0] if len(received[x]) == 1
            else Node("AddN", received[x], x.shape, "AddN") for x in xs_l]
