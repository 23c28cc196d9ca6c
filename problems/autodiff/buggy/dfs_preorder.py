"""Bug: returns the DFS pre-order (a node as soon as it is reached), which is not topological."""

EXPECT = "not-topological"


def topological_sort(variable):
    order, seen, stack = [], set(), [variable]
    while stack:
        v = stack.pop()
        if v.unique_id in seen or v.is_constant():
            continue
        seen.add(v.unique_id)
        order.append(v)
        if not v.is_leaf():
            for p in v.parents:
                stack.append(p)
    return order


def backpropagate(variable, deriv):
    d = {variable.unique_id: deriv}
    for v in topological_sort(variable):
        g = d.get(v.unique_id, 0.0)
        if v.is_leaf():
            v.accumulate_derivative(g)
            continue
        for p, pd in v.chain_rule(g):
            if not p.is_constant():
                d[p.unique_id] = d.get(p.unique_id, 0.0) + pd
