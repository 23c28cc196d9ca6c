"""A student who checks each placeholder in the evaluation loop, as it comes up, before computing anything for it
(TF1 too raises when the run reaches the unfed placeholder): its BASE (no check before the loop) with the check in
the loop. The error is the student's own, naming the placeholder."""

BASE = "buggy/placeholder_check_missing"
EDITS = [
    ("""\
                continue
            if usable_fold(n):
""", """\
                continue
            if n.op_type == "Placeholder":
                raise InvalidArgumentError(f"You must feed a value for placeholder '{n.name}'", n)
            if usable_fold(n):
"""),
]
