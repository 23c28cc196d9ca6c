"""ivan: Kahn's algorithm on user counts; contributions pushed to leaves on the way, then a final pass over the
leaves with their summed adjoints."""

from collections import deque


def topological_sort(variable):
    nodes = {}
    users = {}
    todo = [variable]
    while todo:
        v = todo.pop()
        if v.unique_id in nodes or v.is_constant():
            continue
        nodes[v.unique_id] = v
        users.setdefault(v.unique_id, 0)
        if v.is_leaf():
            continue
        for p in v.parents:
            if p.is_constant():
                continue
            users[p.unique_id] = users.get(p.unique_id, 0) + 1
            todo.append(p)
    ready = deque([variable])
    result = []
    while ready:
        v = ready.popleft()
        result.append(v)
        if v.is_leaf():
            continue
        for p in v.parents:
            if p.is_constant():
                continue
            users[p.unique_id] -= 1
            if users[p.unique_id] == 0:
                ready.append(p)
    return result


def backpropagate(variable, deriv):
    order = topological_sort(variable)
    grads = {variable.unique_id: deriv}
    for v in order:
        if v.is_leaf() or v.unique_id not in grads:
            continue
        for p, g in v.chain_rule(grads[v.unique_id]):
            if p.is_constant():
                continue
            grads[p.unique_id] = grads[p.unique_id] + g if p.unique_id in grads else g
            if p.is_leaf():
                p.accumulate_derivative(g)
    for v in order:
        if v.is_leaf() and v.unique_id in grads:
            v.accumulate_derivative(grads[v.unique_id])
