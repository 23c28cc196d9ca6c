"""A student who checks that EVERY placeholder of the graph is fed, not only those the fetches need."""

EXPECT = 'evaluates-every-node'


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

    for n in self.graph.get_operations():
        if n.op_type == "Placeholder" and n not in feeds:
            raise InvalidArgumentError(f"placeholder {n.name} was not fed", n)
    # variables first: every read in this run sees the value from before its assignments
    order = [n for n in order if n.op_type == "Variable"] + [
        n for n in order if n.op_type != "Variable"
    ]

    values: Dict[Node, Any] = {}
    evaluated: List[str] = []
    for n in order:
        if n in feeds:
            values[n] = feeds[n]
            continue
        if usable_fold(n):
            values[n] = self._folded[n][0]
        else:
            values[n] = self._evaluate(n, [values[i] for i in n.inputs])
        evaluated.append(n.name)
    self.last_run_evaluated = evaluated
    self.total_evaluations += len(evaluated)
    return rebuild({n: self._output(values[n]) for n in fetch_nodes})


Session.run = _Session_run
