"""A valid solution written unlike the reference: the order sorts the needed nodes by their level (1 + the
highest level of their inputs, computed by an explicit post-order stack), and gradients PULLS each node's adjoint
from its users (for each node in reverse order, the contributions of every user already handled), instead of
pushing contributions down as each user is handled."""


def _topological_order(roots, expand=lambda n: True):
    level = {}
    found = []
    stack = [(r, False) for r in roots]
    while stack:
        node, ready = stack.pop()
        if node in level and level[node] is not None:
            continue
        inputs = list(node.inputs) if expand(node) else []
        if ready:
            level[node] = 1 + max((level[i] for i in inputs), default=-1)
            found.append(node)
            continue
        if node in level:  # already waiting for its inputs further down the stack
            continue
        level[node] = None
        stack.append((node, True))
        stack.extend((i, False) for i in inputs if i not in level)
    return sorted(found, key=lambda n: level[n])


def gradients(ys, xs, grad_ys=None, name="gradients"):
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    seeds = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]
    order = _topological_order(ys_l)
    on_path = set(xs_l)
    for n in order:
        if any(i in on_path for i in n.inputs):
            on_path.add(n)
    users = {n: [] for n in order}
    for n in order:
        for i in dict.fromkeys(n.inputs):  # each user once, even when it uses i twice (p * p)
            users[i].append(n)
    own_seed = {}
    adjoint = {}
    with graph.name_scope(name):
        for y, s in zip(ys_l, seeds):
            if y in on_path:
                own_seed.setdefault(y, []).append(
                    Node("OnesLike", (y,), y.shape, "OnesLike") if s is None else _as_node(s, graph))
        for n in reversed(order):
            if n not in on_path:
                continue
            parts = list(own_seed.get(n, []))
            for u in users[n]:
                if u not in adjoint:
                    continue
                need = [i in on_path for i in u.inputs]
                with graph.name_scope(f"{u.name}_grad"):
                    pulled = _OPS[u.op_type].grad(u, adjoint[u], need)
                parts += [g for i, g in zip(u.inputs, pulled) if i is n and g is not None]
            if parts:
                adjoint[n] = parts[0] if len(parts) == 1 else Node("AddN", parts, n.shape, "AddN")
    return [adjoint.get(x) for x in xs_l]
