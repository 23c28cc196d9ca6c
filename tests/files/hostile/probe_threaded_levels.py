# (issue 21, red team) A right Session.run that evaluates each level of ready nodes in a thread pool: every
# _evaluate is a request on the one pipe to the trusted process (requests once raced there and deadlocked; they
# now take turns).
from concurrent.futures import ThreadPoolExecutor as _HxPool


def _hx_run_levels(self, fetches, feed_dict=None):
    if self._closed:
        raise RuntimeError("Attempted to use a closed Session")
    fetch_nodes = []
    rebuild = self._flatten(fetches, fetch_nodes)
    feeds = self._prepare_feeds(feed_dict or {})
    order = _topological_order(fetch_nodes, lambda n: n not in feeds)
    for n in order:
        if n.op_type == "Placeholder" and n not in feeds:
            raise InvalidArgumentError(f"You must feed a value for placeholder '{n.name}'", n)
    values, evaluated, left = {}, [], [n for n in order]
    for n in order:
        if n in feeds:
            values[n] = feeds[n]
    left = [n for n in order if n not in feeds]
    with _HxPool(max_workers=4) as pool:
        while left:
            ready = [n for n in left if all(i in values for i in n.inputs)]
            outs = list(pool.map(lambda n: self._evaluate(n, [values[i] for i in n.inputs]), ready))
            for n, v in zip(ready, outs):
                values[n] = v
                evaluated.append(n.name)
            left = [n for n in left if n not in values]
    self.last_run_evaluated = evaluated
    self.total_evaluations += len(evaluated)
    return rebuild({n: self._output(values[n]) for n in fetch_nodes})


Session.run = _hx_run_levels
