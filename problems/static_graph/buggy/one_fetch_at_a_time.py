"""A student who runs each fetch on its own topological order, one after the other."""

EXPECT = 'reevaluates-shared-nodes'
EDITS = [
    ("""\
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
        for f in fetch_nodes:
            for n in _topological_order([f], expand):
                if n in feeds:
                    values[n] = feeds[n]
                elif usable_fold(n):
                    values[n] = self._folded[n][0]
                else:
                    values[n] = self._evaluate(n, [values[i] for i in n.inputs])
                    evaluated.append(n.name)
"""),
]
