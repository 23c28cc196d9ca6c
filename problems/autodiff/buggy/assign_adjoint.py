"""Bug: a correct order, but each node keeps only the adjoint from the last user processed."""

EXPECT = "no-fanout-accumulation"


def topological_sort(variable):
    post, seen, stack = [], set(), [(variable, 0)]
    while stack:
        v, state = stack.pop()
        if state:
            post.append(v)
            continue
        if v.is_constant() or v.unique_id in seen:
            continue
        seen.add(v.unique_id)
        stack.append((v, 1))
        if not v.is_leaf():
            stack += [(p, 0) for p in v.parents]
    post.reverse()
    return post


def backpropagate(variable, deriv):
    grads = {variable.unique_id: deriv}
    for v in topological_sort(variable):
        if v.is_leaf():
            v.accumulate_derivative(grads[v.unique_id])
            continue
        for p, pd in v.chain_rule(grads[v.unique_id]):
            if not p.is_constant():
                grads[p.unique_id] = pd
