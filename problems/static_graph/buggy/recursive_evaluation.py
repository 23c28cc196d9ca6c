"""A student who evaluates the fetches by memoised recursion (value_of(node) calls value_of on its inputs)."""

EXPECT = 'recursion-limit'


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
        if n.op_type == "Placeholder" and n not in feeds:
            raise InvalidArgumentError(f"You must feed a value for placeholder '{n.name}'", n)
    # variables first: every read in this run sees the value from before its assignments
    order = [n for n in order if n.op_type == "Variable"] + [
        n for n in order if n.op_type != "Variable"
    ]

    values: Dict[Node, Any] = {}
    evaluated: List[str] = []

    def value_of(n):
        if n not in values:
            if n in feeds:
                values[n] = feeds[n]
            elif usable_fold(n):
                values[n] = self._folded[n][0]
                evaluated.append(n.name)
            else:
                values[n] = self._evaluate(n, [value_of(i) for i in n.inputs])
                evaluated.append(n.name)
        return values[n]

    for f in fetch_nodes:
        value_of(f)
    self.last_run_evaluated = evaluated
    self.total_evaluations += len(evaluated)
    return rebuild({n: self._output(values[n]) for n in fetch_nodes})


Session.run = _Session_run
