"""Bug: a right order (the `topological_sort` of its BASE, the valid post-order search), linear time, but each
parent receives the node's own adjoint instead of the chain-rule contribution that `chain_rule` returns (the
local derivative is dropped). Derivatives are wrong almost everywhere (the deep chains' too: their local
derivatives are not 1), so neither linear time nor linear work earns points; no misconception of the
catalogue applies. The complexity tests' messages say why they earn nothing: wrong derivatives."""

BASE = "valid/course_postorder"
LABELS = []
PASSES = [
    "topological_order_random",
    "topological_order_scalars",
]
FAILS = ["work_on_diamonds", "work_on_framework", "time_doubling", "fan_out", "deep_chain_3000", "deep_chain_10000",
         "deep_scalar_chain"]
MESSAGES = {"time_doubling": "wrong derivatives", "work_on_diamonds": "wrong derivatives"}


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        d = derivatives.pop(var.unique_id, None)
        if d is None:
            continue
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, _ in var.chain_rule(d):
            if not parent.is_constant():
                derivatives[parent.unique_id] = derivatives[parent.unique_id] + d if parent.unique_id in derivatives else d
    # END ASSIGN2_1
