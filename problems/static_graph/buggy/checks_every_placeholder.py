"""A student who checks that EVERY placeholder of the graph is fed, not only those the fetches need."""

EXPECT = 'evaluates-every-node'
EDITS = [
    ("""\
        for n in order:
            if n.op_type == "Placeholder" and n not in feeds:
                needed_by = ", ".join(f"'{f.name}'" for f in fetch_nodes)
                raise InvalidArgumentError(
                    f"You must feed a value for placeholder '{n.name}' with shape "
                    f"{_shape_str(n.shape)} (it is needed to compute {needed_by})", n)
""", """\
        for n in self.graph.get_operations():
            if n.op_type == "Placeholder" and n not in feeds:
                raise InvalidArgumentError(f"placeholder {n.name} was not fed", n)
"""),
]
