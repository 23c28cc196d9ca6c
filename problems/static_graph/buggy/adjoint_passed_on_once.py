"""A student whose gradients() passes a node's adjoint on at its first user only (a visited set on the reverse pass): right where x itself has several users, wrong one node further (x -> h, h used twice)."""

EXPECT = "gradients-not-summed"


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients") -> List[Optional[Node]]:
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    grad_ys_l = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]

    adjoint = {}
    done = set()
    with graph.name_scope(name):
        stack = []
        for y, gy in zip(ys_l, grad_ys_l):
            seed = Node("OnesLike", (y,), y.shape, "OnesLike") if gy is None else _as_node(gy, graph)
            adjoint[y] = seed if y not in adjoint else adjoint[y] + seed
            stack.append(y)
        while stack:   # depth first from the ys
            n = stack.pop()
            if n in done:
                continue
            done.add(n)
            if not n.inputs or _OPS.get(n.op_type) is None or _OPS[n.op_type].grad is None:
                continue
            with graph.name_scope(f"{n.name}_grad"):
                gs = _OPS[n.op_type].grad(n, adjoint[n], [True] * len(n.inputs))
            for inp, gi in zip(n.inputs, gs):
                if gi is None:
                    continue
                adjoint[inp] = gi if inp not in adjoint else AddN_or_add(adjoint[inp], gi)
                stack.append(inp)
    return [adjoint.get(x) for x in xs_l]


def AddN_or_add(a, b):
    return add(a, b)
