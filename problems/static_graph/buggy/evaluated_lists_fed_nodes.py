"""A student whose Session.run records every node of the order in last_run_evaluated, fed nodes included."""

EXPECT = None
EDITS = [
    ("""\
        values: Dict[Node, Any] = {}
        evaluated: List[str] = []
        for n in order:
            if n in feeds:
                values[n] = feeds[n]
                continue
            if usable_fold(n):
                values[n] = self._folded[n][0]
            else:
                values[n] = self._evaluate(n, [values[i] for i in n.inputs])
            evaluated.append(n.name)
""", """\
        values = {}
        evaluated = []
        for n in order:
            if n in feeds:
                values[n] = feeds[n]
            elif usable_fold(n):
                values[n] = self._folded[n][0]
            else:
                values[n] = self._evaluate(n, [values[i] for i in n.inputs])
        evaluated.extend(n.name for n in order)   # count every node of the order, fed ones too
"""),
]
