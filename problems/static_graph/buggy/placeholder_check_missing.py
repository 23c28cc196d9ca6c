"""A student who leaves the placeholder check out: the given kernel's error on the unfed placeholder happens to
be an InvalidArgumentError naming it, raised only after the nodes before it were computed."""

EXPECT = "unfed-placeholder-unchecked"
FAILS = ["unfed_placeholder"]
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
]
