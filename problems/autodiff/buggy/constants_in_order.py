"""Bug: constants are sorted and given derivatives like everything else."""

EXPECT = "constant-not-skipped"


def topological_sort(variable):
    post, seen, stack = [], set(), [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            post.append(v)
        elif v.unique_id not in seen:
            seen.add(v.unique_id)
            stack.append((v, True))
            if not v.is_leaf() and not v.is_constant():
                stack.extend((p, False) for p in v.parents)
    return post[::-1]


def backpropagate(variable, deriv):
    grads = {variable.unique_id: deriv}
    for v in topological_sort(variable):
        g = grads.get(v.unique_id, 0.0)
        if v.is_leaf() or v.is_constant():
            v.accumulate_derivative(g)
        else:
            for p, pd in v.chain_rule(g):
                grads[p.unique_id] = grads.get(p.unique_id, 0.0) + pd
