"""A student who checks only the fetched nodes themselves: a placeholder the fetch needs through other nodes is
not checked, and the run computes it (the kernel's error names it). Its BASE has no check; this one
checks the fetches."""

BASE = "buggy/placeholder_check_missing"
EXPECT = "unfed-placeholder-unchecked"
FAILS = ["unfed_placeholder"]
EDITS = [
    ("""\
        pass
        # END SOLUTION
        # variables first""", """\
        for n in fetch_nodes:
            if n.op_type == "Placeholder" and n not in feeds:
                raise InvalidArgumentError(f"You must feed a value for placeholder '{n.name}'", n)
        # END SOLUTION
        # variables first"""),
]
