"""Bug (helper-41's red team): backpropagate never hands the leaves anything, and marks every node it processes
(`node.seen = True`). The mark is no derivative written in the wrong place: nothing is named (it read
`leaf-not-accumulated`, naming the mark, when any attribute set on a leaf counted)."""

BASE = "valid/course_postorder"
EXPECT = None
FAILS = ["slides_example", "fan_out"]


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    adjoints = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        node.seen = True
        if node.is_leaf():
            continue
        for parent, d_parent in node.chain_rule(adjoints[node.unique_id]):
            if not parent.is_constant():
                adjoints[parent.unique_id] = adjoints.get(parent.unique_id, 0.0) + d_parent
    # END ASSIGN2_1
