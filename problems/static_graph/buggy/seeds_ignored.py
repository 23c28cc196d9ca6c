"""A student whose gradients() always starts reverse mode from ones, ignoring grad_ys."""

EXPECT = None


def gradients(
    ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients"
) -> List[Optional[Node]]:
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    if not ys_l:
        raise ValueError("gradients: ys is empty")
    graph = ys_l[0].graph
    for n in ys_l + xs_l:
        if not isinstance(n, Node):
            raise TypeError(f"gradients: {n!r} is not a Node")
        if n.graph is not graph:
            raise ValueError("gradients: ys and xs must belong to the same Graph")
    if grad_ys is None:
        grad_ys_l: List[Any] = [None] * len(ys_l)
    else:
        grad_ys_l, _ = _as_list(grad_ys)
        if len(grad_ys_l) != len(ys_l):
            raise ValueError("gradients: give one grad_y per y")

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
            opdef = _OPS.get(n.op_type)
            if opdef is None or opdef.grad is None:
                raise LookupError(
                    f"No gradient defined for node '{n.name}' (op type {n.op_type}), which lies "
                    "between ys and xs"
                )
            with graph.name_scope(f"{n.name}_grad"):
                input_grads = opdef.grad(n, g, need)
            for inp, gi, nd in zip(n.inputs, input_grads, need):
                if nd and gi is not None:
                    contributions.setdefault(inp, []).append(gi)
    return [adjoint.get(x) for x in xs_l]
