"""A student who checks only the fetched nodes themselves: a placeholder the fetch needs through other nodes is
not checked, and the run computes it (the kernel's error names it)."""

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
        for n in fetch_nodes:
            if n.op_type == "Placeholder" and n not in feeds:
                raise InvalidArgumentError(f"You must feed a value for placeholder '{n.name}'", n)
"""),
]
