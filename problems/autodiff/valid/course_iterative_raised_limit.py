"""Valid: the explicit-stack sort, with a leftover `sys.setrecursionlimit(100000)` (not recursive: no label).

sys.setrecursionlimit is a no-op while grading: a leftover call in an iterative sort costs nothing."""

SCORE = 40.0
EDITS = [
    ("    # The reverse of the post-order of a depth-first search that visits each\n", """\
    import sys

    sys.setrecursionlimit(100000)  # left over from a recursive first try
    # The reverse of the post-order of a depth-first search that visits each
"""),
]
