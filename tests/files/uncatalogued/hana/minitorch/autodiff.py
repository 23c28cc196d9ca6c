"""hana: explicit-stack post-order DFS; leaves get their share as soon as it is computed, and again at the end."""

from typing import Any, Dict, List


def topological_sort(variable):
    order: List[Any] = []
    seen = set()
    stack = [(variable, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node.unique_id in seen or node.is_constant():
            continue
        seen.add(node.unique_id)
        stack.append((node, True))
        for parent in node.parents:
            if not parent.is_constant() and parent.unique_id not in seen:
                stack.append((parent, False))
    return order[::-1]


def backpropagate(variable, deriv):
    adjoint: Dict[int, Any] = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoint.get(node.unique_id)
        if d is None:
            continue
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, d_parent in node.chain_rule(d):
            if parent.is_constant():
                continue
            if parent.is_leaf():  # store the leaf's share right away
                parent.accumulate_derivative(d_parent)
            adjoint[parent.unique_id] = adjoint[parent.unique_id] + d_parent if parent.unique_id in adjoint else d_parent
