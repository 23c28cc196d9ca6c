"""Valid, written against the course's Scalar/Tensor rather than the protocol: walks `var.history.inputs`,
tells leaves by `history.last_fn is None` and constants by `history is None` (as the framework defines
them), with an explicit stack and no recursion."""

SCORE = 40.0


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    if variable.history is None:
        return []
    finished: List[Variable] = []
    seen = set()
    todo = [(variable, False)]
    while todo:
        var, expanded = todo.pop()
        if expanded:
            finished.append(var)
            continue
        if var.unique_id in seen:
            continue
        seen.add(var.unique_id)
        todo.append((var, True))
        if var.history.last_fn is not None:
            for inp in reversed(list(var.history.inputs)):
                if inp.history is not None and inp.unique_id not in seen:
                    todo.append((inp, False))
    finished.reverse()
    return finished
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    grads: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        if var.unique_id not in grads:
            continue
        g = grads.pop(var.unique_id)
        if var.history.last_fn is None:
            var.accumulate_derivative(g)
            continue
        for inp, g_inp in var.chain_rule(g):
            if inp.history is None:
                continue
            grads[inp.unique_id] = grads[inp.unique_id] + g_inp if inp.unique_id in grads else g_inp
    # END ASSIGN2_1
