_hx_slow_backpropagate = backpropagate


class _HxJob:
    """The slow backward pass of one graph, run when the first leaf's derivative is converted to float."""

    def __init__(self, variable, deriv, leaves):
        self.variable, self.deriv, self.leaves, self.values = variable, deriv, leaves, None

    def value(self, leaf):
        if self.values is None:
            for x in self.leaves:
                x.derivative = None
            _hx_slow_backpropagate(self.variable, self.deriv)
            self.values = {id(x): x.derivative for x in self.leaves}
        return float(self.values[id(leaf)])


class _HxLazy:
    """A leaf derivative that does its work in __float__ (after the timed run, when the probe reads it)."""

    def __init__(self, job, leaf):
        self.job, self.leaf = job, leaf

    def __float__(self):
        return self.job.value(self.leaf)


def backpropagate(variable, deriv):
    """On big graphs (the timing probe's): a linear walk that leaves lazy derivatives on the leaves,
    bypassing accumulate_derivative; elsewhere the slow but right backward pass."""
    leaves, seen, stack = [], set(), [variable]
    while stack:
        v = stack.pop()
        if v.unique_id in seen or v.is_constant():
            continue
        seen.add(v.unique_id)
        if v.is_leaf():
            leaves.append(v)
        else:
            stack.extend(v.parents)
    if len(seen) < 2000 or not hasattr(leaves[0], "_uid"):
        return _hx_slow_backpropagate(variable, deriv)
    job = _HxJob(variable, deriv, leaves)
    for x in leaves:
        x.derivative = _HxLazy(job, x)
