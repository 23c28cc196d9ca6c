"""Bug: a recursive DFS (its BASE's) that raises the recursion limit to survive deep graphs."""

BASE = "buggy/recursive"
EDITS = [("def topological_sort(variable):\n", "def topological_sort(variable):\n    sys.setrecursionlimit(100000)\n")]
EXPECT = "recursion-limit"

import sys
