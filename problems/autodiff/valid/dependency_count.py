"""Valid: backpropagate counts pending users itself; topological_sort visits parents in reverse order."""


def topological_sort(variable):
    order, done = [], set()
    stack = [[variable, None]]
    marked = set()
    while stack:
        top = stack[-1]
        node = top[0]
        if top[1] is None:
            if node.unique_id in marked or node.is_constant():
                stack.pop()
                continue
            marked.add(node.unique_id)
            parents = [] if node.is_leaf() else list(node.parents)[::-1]
            top[1] = iter(parents)
        advanced = False
        for p in top[1]:
            if p.unique_id not in marked and not p.is_constant():
                stack.append([p, None])
                advanced = True
                break
        if not advanced:
            stack.pop()
            if node.unique_id not in done:
                done.add(node.unique_id)
                order.append(node)
    return list(reversed(order))


def backpropagate(variable, deriv):
    pending = {}
    nodes = {variable.unique_id: variable}
    stack = [variable]
    while stack:
        n = stack.pop()
        if n.is_leaf() or n.is_constant():
            continue
        for p in n.parents:
            if p.is_constant():
                continue
            pending[p.unique_id] = pending.get(p.unique_id, 0) + 1
            if p.unique_id not in nodes:
                nodes[p.unique_id] = p
                stack.append(p)
    adj = {variable.unique_id: deriv}
    ready = [variable]
    while ready:
        n = ready.pop()
        d = adj.pop(n.unique_id)
        if n.is_leaf():
            n.accumulate_derivative(d)
            continue
        for p, dp in n.chain_rule(d):
            if p.is_constant():
                continue
            adj[p.unique_id] = adj[p.unique_id] + dp if p.unique_id in adj else dp
            pending[p.unique_id] -= 1
            if pending[p.unique_id] == 0:
                ready.append(p)
