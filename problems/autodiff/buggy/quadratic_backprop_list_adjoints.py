"""Bug (speed): a correct order, but the adjoints live in two parallel lists searched with `in` and `.index` (quadratic)."""

EXPECT = "quadratic-traversal"


def backpropagate(variable, deriv):
    ids, adjoints = [variable.unique_id], [deriv]
    for v in topological_sort(variable):
        if v.unique_id not in ids:
            continue
        g = adjoints[ids.index(v.unique_id)]
        if v.is_leaf():
            v.accumulate_derivative(g)
            continue
        for p, pd in v.chain_rule(g):
            if p.is_constant():
                continue
            if p.unique_id in ids:
                j = ids.index(p.unique_id)
                adjoints[j] = adjoints[j] + pd
            else:
                ids.append(p.unique_id)
                adjoints.append(pd)
