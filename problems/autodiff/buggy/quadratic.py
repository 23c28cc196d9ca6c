"""Bug (speed): right values, but `in` on a growing list makes the traversal quadratic."""

EXPECT = "quadratic-traversal"


def topological_sort(variable):
    post, seen, stack = [], [], [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            post.append(v)
        elif not v.is_constant() and v.unique_id not in seen:
            seen.append(v.unique_id)
            stack.append((v, True))
            if not v.is_leaf():
                stack.extend((p, False) for p in v.parents)
    return post[::-1]


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
