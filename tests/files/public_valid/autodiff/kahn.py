"""Kahn's algorithm from the output (count each node's users, emit a node once all have been emitted),
and a backpropagate that keeps a list of contributions per node and sums them when the node is reached."""


def topological_sort(variable):
    users, nodes, stack = {}, {}, [variable]
    while stack:
        node = stack.pop()
        if node.unique_id in nodes or node.is_constant():
            continue
        nodes[node.unique_id] = node
        for parent in node.parents:
            if not parent.is_constant():
                users[parent.unique_id] = users.get(parent.unique_id, 0) + 1
                stack.append(parent)
    order, ready = [], [variable]
    while ready:
        node = ready.pop(0)
        order.append(node)
        for parent in node.parents:
            if parent.is_constant():
                continue
            users[parent.unique_id] -= 1
            if users[parent.unique_id] == 0:
                ready.append(parent)
    return order


def backpropagate(variable, deriv):
    contributions = {variable.unique_id: [deriv]}
    for node in topological_sort(variable):
        parts = contributions.pop(node.unique_id, [])
        if not parts:
            continue
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        if node.is_leaf():
            node.accumulate_derivative(total)
            continue
        for parent, d_parent in node.chain_rule(total):
            if not parent.is_constant():
                contributions.setdefault(parent.unique_id, []).append(d_parent)
