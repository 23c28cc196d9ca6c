"""A student who checks each placeholder in the evaluation loop, as it comes up, before computing anything for it
(TF1 too raises when the run reaches the unfed placeholder): the error is the student's own, naming it."""

EDITS = [
    ("""\
        for n in order:
            if n.op_type == "Placeholder" and n not in feeds:
                needed_by = ", ".join(f"'{f.name}'" for f in fetch_nodes)
                raise InvalidArgumentError(
                    f"You must feed a value for placeholder '{n.name}' with shape "
                    f"{_shape_str(n.shape)} (it is needed to compute {needed_by})", n)
""", """\
        pass
"""),
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
