"""A student whose gradients() returns a constant 0 for an x the ys do not depend on, instead of None (TF1)."""

EXPECT = None


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients") -> List[Optional[Node]]:
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    grad_ys_l = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]

    order = _topological_order(ys_l)  # inputs before users
    xs_set = set(xs_l)
    on_path = set()  # nodes that depend on some x
    for n in order:
        if n in xs_set or any(i in on_path for i in n.inputs):
            on_path.add(n)

    contributions: Dict[Node, List[Node]] = {}
    adjoint: Dict[Node, Node] = {}
    with graph.name_scope(name):
        for y, gy in zip(ys_l, grad_ys_l):
            if y not in on_path:
                continue
            if gy is None:
                seed = Node("OnesLike", (y,), y.shape, "OnesLike")
            else:
                seed = _as_node(gy, graph)
            contributions.setdefault(y, []).append(seed)
        for n in reversed(order):
            parts = contributions.pop(n, None)
            if parts is None:
                continue
            g = parts[0] if len(parts) == 1 else Node("AddN", parts, n.shape, "AddN")
            adjoint[n] = g
            need = [i in on_path for i in n.inputs]
            if not any(need):
                continue
            with graph.name_scope(f"{n.name}_grad"):
                input_grads = _OPS[n.op_type].grad(n, g, need)
            for inp, gi, nd in zip(n.inputs, input_grads, need):
                if nd and gi is not None:
                    contributions.setdefault(inp, []).append(gi)
    return [adjoint.get(x, _as_node(0.0, graph)) for x in xs_l]
