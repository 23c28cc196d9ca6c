"""Valid: Kahn's algorithm (count each node's users, release a node when all users are done)."""

from collections import deque


def topological_sort(variable):
    if variable.is_constant():
        return []
    users = {}
    seen = {variable.unique_id: variable}
    todo = [variable]
    while todo:
        node = todo.pop()
        if node.is_leaf():
            continue
        for p in node.parents:
            if p.is_constant():
                continue
            users[p.unique_id] = users.get(p.unique_id, 0) + 1
            if p.unique_id not in seen:
                seen[p.unique_id] = p
                todo.append(p)
    ready = deque([variable])
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        if node.is_leaf():
            continue
        for p in node.parents:
            if p.is_constant():
                continue
            users[p.unique_id] -= 1
            if users[p.unique_id] == 0:
                ready.append(p)
    return order


def backpropagate(variable, deriv):
    grads = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        g = grads.get(node.unique_id)
        if g is None:
            continue
        if node.is_leaf():
            node.accumulate_derivative(g)
        else:
            for p, d in node.chain_rule(g):
                if not p.is_constant():
                    grads[p.unique_id] = grads[p.unique_id] + d if p.unique_id in grads else d
