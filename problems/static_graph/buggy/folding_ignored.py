"""A student whose Session.run evaluates every node of the order itself and never takes the folded value of a constant subgraph (self._folded), whose inputs the plan leaves out."""

EXPECT = None
EDITS = [
    ("""\
                continue
            if usable_fold(n):
                values[n] = self._folded[n][0]
            else:
                values[n] = self._evaluate(n, [values[i] for i in n.inputs])
""", """\
                continue
            values[n] = self._evaluate(n, [values[i] for i in n.inputs])
"""),
]
