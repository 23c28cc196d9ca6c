"""Breadth-first (first-touch) order: a node is processed as soon as it is reached."""

# Appended to the reference autodiff.py: the other function is the reference's.

from collections import deque

MISCONCEPTION = "not-topological"


def topological_sort(variable):
    order, seen, queue = [], {variable.unique_id}, deque([variable])
    while queue:
        node = queue.popleft()
        if node.is_constant():
            continue
        order.append(node)
        if node.is_leaf():
            continue
        for parent in node.parents:
            if parent.unique_id not in seen and not parent.is_constant():
                seen.add(parent.unique_id)
                queue.append(parent)
    return order
