"""Bug: a right reverse topological order (the valid post-order search of its BASE) and interior adjoints summed
over their users, but a leaf's entry is assigned (`=`) by each user: a leaf used by several nodes (x₁ of the
slides' example) keeps the last contribution (367.04 instead of 368.04). Only `no-fanout-accumulation` applies."""

BASE = "valid/course_postorder"
LABELS = ["no-fanout-accumulation"]
PASSES = ["topological_order_random", "topological_order_scalars"]
FAILS = ["fan_out", "slides_example"]


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = derivatives.get(node.unique_id)
        if d is None:
            continue
        if node.is_leaf():
            node.accumulate_derivative(d)
            continue
        for parent, dp in node.chain_rule(d):
            if parent.is_constant():
                continue
            if parent.is_leaf():
                derivatives[parent.unique_id] = dp
            else:
                derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + dp
    # END ASSIGN2_1
