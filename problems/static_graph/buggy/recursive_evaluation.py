"""A student who evaluates the fetches by memoised recursion (value_of(node) calls value_of on its inputs)."""

EXPECT = 'recursion-limit'
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

        def value_of(n):
            if n not in values:
                if n in feeds:
                    values[n] = feeds[n]
                elif usable_fold(n):
                    values[n] = self._folded[n][0]
                    evaluated.append(n.name)
                else:
                    values[n] = self._evaluate(n, [value_of(i) for i in n.inputs])
                    evaluated.append(n.name)
            return values[n]

        for f in fetch_nodes:
            value_of(f)
"""),
]
