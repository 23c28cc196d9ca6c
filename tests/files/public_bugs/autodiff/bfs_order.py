"""Breadth-first order: a node is processed as soon as it is first reached, not after all its users."""

from collections import deque as _deque


def topological_sort(variable):
    order, seen, queue = [], {variable.unique_id}, _deque([variable])
    while queue:
        node = queue.popleft()
        order.append(node)
        for parent in node.parents:
            if parent.unique_id not in seen and not parent.is_constant():
                seen.add(parent.unique_id)
                queue.append(parent)
    return order


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints.get(node.unique_id, 0.0)
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, d_parent in node.chain_rule(d):
            if not parent.is_constant():
                adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + d_parent
