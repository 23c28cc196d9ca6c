"""Bug (as a real student wrote it): a right reverse topological order (its BASE's) and adjoints summed over the
users, but each leaf gets `leaf.grad = adjoint` instead of `leaf.accumulate_derivative(adjoint)`. The course's
Tensors read `grad`, so the Tensor programs pass; no Scalar nor any other Variable gets a derivative. The fan-out test names
`leaf-not-accumulated` from the grader's record of what the student's process set on the leaves (the 30 points lost
read "no value" before, naming nothing)."""

BASE = "valid/course_postorder"
LABELS = ["leaf-not-accumulated"]
PASSES = ["topological_order_random", "topological_order_scalars", "tensor_program_0", "tensor_program_1"]
FAILS = ["slides_example", "fan_out"]
MESSAGES = {"fan_out": "wrote each leaf's right derivative to its 'grad' itself instead of calling "
                      "leaf.accumulate_derivative(d)"}


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    grads = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        if node.is_leaf():
            node.grad = grads[node.unique_id]
        else:
            for parent, grad in node.chain_rule(grads[node.unique_id]):
                if parent.unique_id in grads:
                    grads[parent.unique_id] += grad
                else:
                    grads[parent.unique_id] = grad
    # END ASSIGN2_1
