"""Bug, written differently: the same first-input-only backpropagate, with a list-indexed loop over the
order and a defaultdict; no name from the catalogue fits it."""

EXPECT = None
FAILS = ["fan_out"]

from collections import defaultdict


def backpropagate(variable, deriv):
    order = list(topological_sort(variable))
    grads = defaultdict(float)
    grads[order[0].unique_id] = deriv
    for i in range(len(order)):
        node = order[i]
        if node.is_leaf():
            node.accumulate_derivative(grads[node.unique_id])
        else:
            first = node.chain_rule(grads[node.unique_id])[0]
            if not first[0].is_constant():
                grads[first[0].unique_id] += first[1]
