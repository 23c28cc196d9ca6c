"""Bug (speed): a correct DFS whose order is built by `order = [node] + order` (a whole copy per node: quadratic)."""

EXPECT = "quadratic-traversal"


def topological_sort(variable):
    order, seen, stack = [], set(), [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order = [v] + order
            continue
        if v.is_constant() or v.unique_id in seen:
            continue
        seen.add(v.unique_id)
        stack.append((v, True))
        if not v.is_leaf():
            stack.extend((p, False) for p in v.parents)
    return order


def backpropagate(variable, deriv):
    grads = {variable.unique_id: deriv}
    for v in topological_sort(variable):
        g = grads.pop(v.unique_id, None)
        if g is None:
            continue
        if v.is_leaf():
            v.accumulate_derivative(g)
        else:
            for p, pd in v.chain_rule(g):
                if not p.is_constant():
                    grads[p.unique_id] = grads[p.unique_id] + pd if p.unique_id in grads else pd
