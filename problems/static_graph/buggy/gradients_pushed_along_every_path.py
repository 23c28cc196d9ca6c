"""Buggy: reverse mode by recursion, pushing each contribution on down to the xs as soon as it is made: the right
sums, but every path from a y to an x is walked (work doubling with every diamond), and one Python frame per
node of the path (a deep chain exceeds the recursion limit)."""

LABELS = ["path-recursion", "recursion-limit"]
FAILS = ["gradients_work", "deep_chain"]


def gradients(ys, xs, grad_ys=None, name="gradients"):
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    seeds = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]
    reaches = {}

    def reaches_x(n):  # memoised: does n depend on some x?
        if n not in reaches:
            reaches[n] = n in xs_l or any(reaches_x(i) for i in n.inputs)
        return reaches[n]

    total = {}

    def push(n, g):
        total[n] = g if n not in total else add(total[n], g)
        need = [reaches_x(i) for i in n.inputs]
        if not any(need):
            return
        with graph.name_scope(f"{n.name}_grad"):
            parts = _OPS[n.op_type].grad(n, g, need)
        for inp, part, wanted in zip(n.inputs, parts, need):
            if wanted and part is not None:
                push(inp, part)

    with graph.name_scope(name):
        for y, seed in zip(ys_l, seeds):
            if reaches_x(y):
                push(y, Node("OnesLike", (y,), y.shape, "OnesLike") if seed is None else _as_node(seed, graph))
    return [total.get(x) for x in xs_l]
