"""Bug: backpropagate sums adjoints over users correctly, but hands each node's derivative to its FIRST
input only (the second input of every node gets nothing). On the fan-out graph x does see a single user's
contribution, yet the evidence is not an overwritten adjoint: a user of x was never handed its own. The
catalogue has no name for it, so none is given (the issue's three versions were all told
`no-fanout-accumulation`)."""

EXPECT = None
FAILS = ["fan_out"]


def backpropagate(variable, deriv):
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = adjoints.pop(node.unique_id, None)
        if d is None:
            continue
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        pairs = list(node.chain_rule(d))
        if pairs and not pairs[0][0].is_constant():
            parent, d_parent = pairs[0]
            adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + d_parent
