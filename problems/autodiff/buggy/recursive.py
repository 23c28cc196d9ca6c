"""Bug (on deep graphs): a recursive post-order DFS."""

EXPECT = "recursion-limit"


def topological_sort(variable):
    seen = set()
    post = []

    def dfs(v):
        if v.is_constant() or v.unique_id in seen:
            return
        seen.add(v.unique_id)
        if not v.is_leaf():
            for p in v.parents:
                dfs(p)
        post.append(v)

    dfs(variable)
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
