"""Bug: a right reverse topological order (the `topological_sort` of its BASE, the valid post-order search), but a
parent's adjoint is assigned (`=`) instead of summed over its users. Only `no-fanout-accumulation` applies."""

BASE = "valid/course_postorder"
LABELS = ["no-fanout-accumulation"]
PASSES = ["topological_order_random", "topological_order_scalars"]
FAILS = ["fan_out"]


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if not parent.is_constant():
                derivatives[parent.unique_id] = d_parent
    # END ASSIGN2_1
