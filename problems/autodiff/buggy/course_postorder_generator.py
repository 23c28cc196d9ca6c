"""Bug (three of them): `topological_sort` is a post-order generator over an explicit stack that is never
reversed (the output comes LAST) and that asks a constant for its parents (it only stops at leaves);
`backpropagate` does not use the order at all: it pushes (variable, derivative) pairs along every path, and
calls chain_rule on constants too. The order is judged on graphs with no constant, where it is seen alone:
`order-not-reversed`; constants touched: `constant-not-skipped`; work growing with the path count:
`path-recursion`."""

LABELS = ["order-not-reversed", "constant-not-skipped", "path-recursion"]
SCORE = 9.0
TAGS = {"topological_order_random": "order-not-reversed", "constants_skipped": "constant-not-skipped",
        "work_on_diamonds": "path-recursion"}


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    seen = set()
    todo = [(variable, False)]
    while todo:
        var, expanded = todo.pop()
        if expanded:
            yield var
            continue
        if var.unique_id in seen:
            continue
        seen.add(var.unique_id)
        todo.append((var, True))
        if not var.is_leaf():
            for parent in var.parents:
                todo.append((parent, False))
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    pending = [(variable, deriv)]
    while pending:
        var, d = pending.pop()
        if var.is_leaf():
            var.accumulate_derivative(d)
        else:
            pending.extend(var.chain_rule(d))
    # END ASSIGN2_1
