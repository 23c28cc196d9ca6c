"""A student whose gradients() stores each contribution in a dict entry, overwriting the previous user's."""

EXPECT = 'gradients-not-summed'


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients") -> List[Optional[Node]]:
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    grad_ys_l = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]

    order = _topological_order(ys_l)
    on_path = set()
    for n in order:
        if n in xs_l or any(i in on_path for i in n.inputs):
            on_path.add(n)
    grad: Dict[Node, Node] = {}
    with graph.name_scope(name):
        for y, gy in zip(ys_l, grad_ys_l):
            if y in on_path:
                grad[y] = Node("OnesLike", (y,), y.shape, "OnesLike") if gy is None else _as_node(gy, graph)
        for n in reversed(order):
            if n not in grad or not n.inputs:
                continue
            need = [i in on_path for i in n.inputs]
            if not any(need):
                continue
            input_grads = _OPS[n.op_type].grad(n, grad[n], need)
            for inp, g in zip(n.inputs, input_grads):
                if g is not None:
                    grad[inp] = g
    return [grad.get(x) for x in xs_l]
