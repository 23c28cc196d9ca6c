"""A student who raises a subclass of InvalidArgumentError (MissingFeedError) for an unfed needed placeholder."""

EDITS = [
    ("""\
        for n in order:
            if n.op_type == "Placeholder" and n not in feeds:
                needed_by = ", ".join(f"'{f.name}'" for f in fetch_nodes)
                raise InvalidArgumentError(
                    f"You must feed a value for placeholder '{n.name}' with shape "
                    f"{_shape_str(n.shape)} (it is needed to compute {needed_by})", n)
""", '''\
        class MissingFeedError(InvalidArgumentError):
            """An InvalidArgumentError for an unfed placeholder."""
        for n in order:
            if n.op_type == "Placeholder" and n not in feeds:
                raise MissingFeedError(f"You must feed a value for placeholder '{n.name}'", n)
'''),
]
