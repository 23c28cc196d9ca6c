"""A student whose gradients() always starts reverse mode from ones, ignoring grad_ys."""

EXPECT = None


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients") -> List[Optional[Node]]:
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph

    order = _topological_order(ys_l)  # inputs before users
    xs_set = set(xs_l)
    on_path = set()  # nodes that depend on some x
    for n in order:
        if n in xs_set or any(i in on_path for i in n.inputs):
            on_path.add(n)

    contributions: Dict[Node, List[Node]] = {}
    adjoint: Dict[Node, Node] = {}
    with graph.name_scope(name):
        for y in ys_l:
            if y not in on_path:
                continue
            seed = Node("OnesLike", (y,), y.shape, "OnesLike")  # dy/dy = 1
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
    return [adjoint.get(x) for x in xs_l]
