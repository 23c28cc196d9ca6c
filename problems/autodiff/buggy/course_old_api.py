"""Bug: written for an older miniTorch API: `backpropagate` asks each variable's history for a
`backprop_step`, which this framework does not have (AttributeError everywhere). The sort itself walks
`history.inputs` and is right. It crashes; nothing shows a misconception, so none is named."""

LABELS = []
PASSES = ["topological_order_random", "topological_order_scalars"]
SCORE = 5.0


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    order: List[Variable] = []
    seen = set()
    stack = [(variable, False)]
    while stack:
        var, expanded = stack.pop()
        if var.history is None:
            continue
        if expanded:
            order.append(var)
        elif var.unique_id not in seen:
            seen.add(var.unique_id)
            stack.append((var, True))
            stack.extend((p, False) for p in var.history.inputs if p.unique_id not in seen)
    return order[::-1]
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    queue = [(variable, deriv)]
    for var in topological_sort(variable):
        if var.is_leaf():
            continue
        for parent, d in var.history.backprop_step(deriv):
            queue.append((parent, d))
    for var, d in queue:
        if var.is_leaf():
            var.accumulate_derivative(d)
    # END ASSIGN2_1
