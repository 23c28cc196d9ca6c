"""jun: the course's structure (visited set, post-order list, a derivatives table); a helper that hands a
contribution to an input also writes it on the input when that input is a leaf."""

from typing import Any, Dict


def topological_sort(variable):
    visited = set()
    finished = set()
    post = []
    stack = [variable]
    while stack:
        var = stack[-1]
        if var.is_constant() or var.unique_id in finished:
            stack.pop()
            continue
        if var.unique_id in visited:
            stack.pop()
            finished.add(var.unique_id)
            post.append(var)
            continue
        visited.add(var.unique_id)
        if not var.is_leaf():
            for m in var.parents:
                if m.unique_id not in visited and not m.is_constant():
                    stack.append(m)
    post.reverse()
    return post


def _hand_on(derivatives: Dict[int, Any], var, d) -> None:
    derivatives[var.unique_id] = derivatives[var.unique_id] + d if var.unique_id in derivatives else d
    if var.is_leaf():
        var.accumulate_derivative(d)


def backpropagate(variable, deriv):
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        d = derivatives.get(var.unique_id)
        if d is None:
            continue
        if var.is_leaf():
            var.accumulate_derivative(d)
        else:
            for inp, g in var.chain_rule(d):
                if not inp.is_constant():
                    _hand_on(derivatives, inp, g)
