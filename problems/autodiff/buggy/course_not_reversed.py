"""Bug: the post-order depth-first search (its BASE's, the valid one) is returned as it is, inputs first and the
output LAST: each finished node is appended at the end instead of at the front (never reversed).
`backpropagate` is right for a right order and uses `deriv`; it skips nodes that have no adjoint yet, so with
this order no leaf ever receives a derivative. Only `order-not-reversed` applies, never
`seed-derivative-ignored` (it uses `deriv`): the order tests name it and say "output first", even though the
backward pass fails too."""

BASE = "valid/course_postorder"
EDITS = [("order.appendleft(node)", "order.append(node)")]
LABELS = ["order-not-reversed"]
FAILS = [
    "topological_order_random",
    "topological_order_scalars",
    "work_on_diamonds",
    "work_on_framework",
    "time_doubling",
    "deep_chain_3000",
    "deep_chain_10000",
    "deep_scalar_chain",
    "deep_tensor_chain",
    "derivative_argument",
]
MESSAGES = {
    "topological_order_random": "output first",
    "topological_order_scalars": "output first",
}
TAGS = {
    "topological_order_random": "order-not-reversed",
    "topological_order_scalars": "order-not-reversed",
}


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        if var.unique_id not in derivatives:
            continue
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if not parent.is_constant():
                derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + d_parent
    # END ASSIGN2_1
