"""Valid, written differently: `topological_sort` is a generator running Kahn's algorithm from the output
(a node is yielded once all of its users have been), so the order differs from the course's DFS order;
`backpropagate` consumes it lazily."""

SCORE = 40.0

from collections import defaultdict, deque


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    if variable.is_constant():
        return
    users: Dict[int, int] = defaultdict(int)
    stack, seen = [variable], {variable.unique_id}
    while stack:
        var = stack.pop()
        if var.is_leaf():
            continue
        for p in var.parents:
            if p.is_constant():
                continue
            users[p.unique_id] += 1
            if p.unique_id not in seen:
                seen.add(p.unique_id)
                stack.append(p)
    ready = deque([variable])
    while ready:
        var = ready.popleft()
        yield var
        if var.is_leaf():
            continue
        for p in var.parents:
            if p.is_constant():
                continue
            users[p.unique_id] -= 1
            if users[p.unique_id] == 0:
                ready.append(p)
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    adjoint: Dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        d = adjoint.pop(var.unique_id)
        if var.is_leaf():
            var.accumulate_derivative(d)
        else:
            for p, dp in var.chain_rule(d):
                if not p.is_constant():
                    adjoint[p.unique_id] = adjoint[p.unique_id] + dp if p.unique_id in adjoint else dp
    # END ASSIGN2_1
