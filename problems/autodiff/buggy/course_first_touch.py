"""Bug: `topological_sort` is right (its BASE's, the valid post-order search), but `backpropagate` does not use
it: it walks the graph with a stack and processes each node when it is first reached (first-touch order), so a
node can pass its adjoint on before all of its users have contributed. Contributions that arrive are summed
(`+`). Only `not-topological` applies, not `no-fanout-accumulation`."""

BASE = "valid/course_postorder"
LABELS = ["not-topological"]
PASSES = ["topological_order_random", "topological_order_scalars"]
FAILS = ["work_on_diamonds", "work_on_framework", "time_doubling", "fan_out"]


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    stack = [variable]
    reached = {variable.unique_id}
    while stack:
        var = stack.pop()
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if parent.is_constant():
                continue
            derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + d_parent
            if parent.unique_id not in reached:
                reached.add(parent.unique_id)
                stack.append(parent)
    # END ASSIGN2_1
