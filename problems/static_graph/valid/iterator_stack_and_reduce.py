"""A valid solution written unlike the reference: the topological order by a depth-first search whose stack holds
(node, iterator over its remaining inputs); gradients() marks the nodes that reach an x in a dict, sums each
node's incoming contributions with functools.reduce; Session.run starts its values from the feeds."""


def _topological_order(
    roots: Iterable[Node], expand: Callable[[Node], bool] = lambda n: True
) -> List[Node]:
    # depth-first search with a stack of (node, iterator over its remaining inputs)
    order: List[Node] = []
    placed: set = set()
    for root in roots:
        if root in placed:
            continue
        placed.add(root)
        stack = [(root, iter(root.inputs if expand(root) else ()))]
        while stack:
            node, pending = stack[-1]
            child = next((i for i in pending if i not in placed), None)
            if child is None:
                stack.pop()
                order.append(node)
            else:
                placed.add(child)
                stack.append((child, iter(child.inputs if expand(child) else ())))
    return order


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients") -> List[Optional[Node]]:
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    graph = ys_l[0].graph
    grad_ys_l = [None] * len(ys_l) if grad_ys is None else _as_list(grad_ys)[0]

    order = _topological_order(ys_l)
    targets = set(xs_l)
    reaches = {}  # node -> does it depend on some x?
    for n in order:
        reaches[n] = n in targets or any(reaches.get(i, False) for i in n.inputs)

    incoming: Dict[Node, List[Node]] = {}
    with graph.name_scope(name):
        for k, y in enumerate(ys_l):
            if reaches.get(y):
                gy = grad_ys_l[k]
                incoming.setdefault(y, []).append(
                    _as_node(gy, graph) if gy is not None else Node("OnesLike", (y,), y.shape, "OnesLike"))
        result: Dict[Node, Node] = {}
        for n in reversed(order):
            if n not in incoming:
                continue
            result[n] = functools.reduce(lambda a, b: a + b, incoming[n])  # every user's contribution, summed
            need = [bool(reaches.get(i)) for i in n.inputs]
            if not any(need):
                continue
            opdef = _OPS.get(n.op_type)
            if opdef is None or opdef.grad is None:
                raise LookupError(f"No gradient defined for node '{n.name}' (op type {n.op_type}) between ys and xs")
            with graph.name_scope(f"{n.name}_grad"):
                grads_in = opdef.grad(n, result[n], need)
            for k, inp in enumerate(n.inputs):
                if need[k] and grads_in[k] is not None:
                    incoming.setdefault(inp, []).append(grads_in[k])
    return [result[x] if x in result else None for x in xs_l]


def _Session_run(self, fetches: Any, feed_dict: Optional[Dict[Any, Any]] = None) -> Any:
    fetch_nodes: List[Node] = []
    rebuild = self._flatten(fetches, fetch_nodes)
    feeds = self._prepare_feeds(feed_dict or {})

    def usable_fold(n: Node) -> bool:
        entry = self._folded.get(n)
        return entry is not None and n not in feeds and entry[1].isdisjoint(feeds)

    def expand(n: Node) -> bool:
        return n not in feeds and not usable_fold(n)

    order = _topological_order(fetch_nodes, expand)
    self.last_run_folded = []
    if self.constant_folding and self._fold(order, fetch_nodes, feeds, usable_fold):
        order = _topological_order(fetch_nodes, expand)

    for n in order:
        if n.op_type != "Placeholder" or n in feeds:
            continue
        raise InvalidArgumentError(
            f"You must feed a value for placeholder '{n.name}' (shape {_shape_str(n.shape)})", n)
    # variables first: every read in this run sees the value from before its assignments
    order = [n for n in order if n.op_type == "Variable"] + [
        n for n in order if n.op_type != "Variable"
    ]

    values: Dict[Node, Any] = dict(feeds)
    evaluated: List[str] = []
    for n in order:
        if n in values:
            continue  # fed
        if usable_fold(n):
            values[n] = self._folded[n][0]
        else:
            args = [values[i] for i in n.inputs]
            values[n] = self._evaluate(n, args)
        evaluated.append(n.name)
    self.last_run_evaluated = evaluated
    self.total_evaluations += len(evaluated)
    return rebuild({n: self._output(values[n]) for n in fetch_nodes})


Session.run = _Session_run
