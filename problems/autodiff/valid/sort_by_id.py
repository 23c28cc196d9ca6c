"""Valid on this framework: collect the graph, then sort by unique_id (ids grow with creation)."""


def topological_sort(variable):
    found = {}
    stack = [variable]
    while stack:
        v = stack.pop()
        if v.is_constant() or v.unique_id in found:
            continue
        found[v.unique_id] = v
        if not v.is_leaf():
            stack.extend(v.parents)
    return [found[k] for k in sorted(found, reverse=True)]


def backpropagate(variable, deriv):
    derivatives = {variable.unique_id: deriv}
    for v in topological_sort(variable):
        if v.unique_id not in derivatives:
            continue
        d = derivatives[v.unique_id]
        if v.is_leaf():
            v.accumulate_derivative(d)
            continue
        for parent, pd in v.chain_rule(d):
            if parent.is_constant():
                continue
            derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + pd
