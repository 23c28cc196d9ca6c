"""A student whose session keeps the values it computed (on self) and reuses them in later runs."""

EXPECT = "values-kept-across-runs"
FAILS = ["fresh_runs"]
EDITS = [
    ("""\
        values: Dict[Node, Any] = {}
        evaluated: List[str] = []
        for n in order:
            if n in feeds:
                values[n] = feeds[n]
                continue
""", """\
        if not hasattr(self, "_cache"):
            self._cache = {}
        values: Dict[Node, Any] = self._cache
        evaluated: List[str] = []
        for n in order:
            if n in feeds:
                values[n] = feeds[n]
                continue
            if n in values and n.op_type != "Variable":
                continue
"""),
]
