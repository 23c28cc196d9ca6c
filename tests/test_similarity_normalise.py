"""Dead-store removal (graders.similarity.normalise) keeps, as drops happen, how many times each function's
subtree and the whole file read each name, instead of walking the tree again after every drop. Its result must be
exactly that of the plain algorithm that walks again: the oracle below, on every Python file of the project's
submissions and on files made to cascade (a store read only by a dead store, nested functions, `global`, `del`,
annotated and augmented stores, stores whose value may have an effect)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import List, Set

import pytest

from graders.similarity import normalise as nm

ROOT = Path(__file__).resolve().parent.parent

CASCADES = {
    "chain_of_dead_stores": """
def f(x):
    a = x + 1
    b = a * 2
    c = b - 3
    return x
""",
    "nested_reads_keep_outer_stores": """
def outer(x):
    kept = x + 1
    dead = x + 2
    def inner(y):
        only_inner_reads = kept
        return y
    return inner
""",
    "module_names_read_in_functions": """
alpha = 1
beta = alpha + 1
gamma = print("effect")
def uses():
    global delta
    delta = 3
    return alpha
_unused: int = beta
counter = 0
counter += 1
del alpha
x
1
""",
    "effects_stay_as_expressions": """
def g(items):
    first = items.pop()
    second = first + len(items)
    third: list = [second]
    total = 0
    total += third[0]
    return items
""",
    "reads_only_by_dropped_effects": """
def h(v):
    source = v * 2
    sink = print(source)
    other = sink
    return v
""",
    "classes_and_methods": """
class K:
    attribute = 1
    def method(self, z):
        lost = z + self.attribute
        w = lost
        def deeper():
            nonlocal w
            w = 2
            gone = w
        return z
""",
}


def _oracle(tree: ast.Module) -> Set[str]:
    """Dead-store removal as the plain algorithm does it: every function taken in preorder, then the module, in up
    to 3 rounds, each time with the names its subtree reads now (a walk of the tree as it is)."""
    dropped: Set[str] = set()
    functions: List[ast.AST] = [n for n in nm._preorder(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for _ in range(3):
        changed = False
        for fn in functions:
            changed |= nm._drop_dead(nm._blocks(fn, stop_at_functions=True), set(nm._load_counts(fn)), Counter())
        changed |= nm._drop_dead(nm._blocks(tree, stop_at_functions=True), set(nm._load_counts(tree)), Counter(),
                                  dropped)
        if not changed:
            break
    return dropped


def _corpus() -> dict:
    files = dict(CASCADES)
    for folder in ("reference", "problems", "tests/files", "student_template"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            files[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return files


CORPUS = _corpus()


@pytest.mark.parametrize("name", sorted(CASCADES))
def test_the_cascades_drop_what_a_rewalk_drops(name):
    tree, expected = ast.parse(CASCADES[name]), ast.parse(CASCADES[name])
    dropped, oracle_dropped = nm._remove_dead_stores(tree), _oracle(expected)
    assert ast.dump(tree) == ast.dump(expected) and dropped == oracle_dropped
    assert ast.dump(tree) != ast.dump(ast.parse(CASCADES[name])), "the case drops nothing: it tests nothing"


def test_every_project_file_is_normalised_as_a_rewalk_would():
    """The incremental counts against the oracle on every Python file of the project's submissions, with the
    module's order of rounds and functions (the oracle takes every function every round: a function whose subtree
    did not change drops nothing new, so the results agree)."""
    differ, compared = [], 0
    for name, text in CORPUS.items():
        try:
            tree, expected = ast.parse(text), ast.parse(text)  # two trees (a deep copy would follow shared nodes)
        except SyntaxError:
            continue
        if nm._remove_dead_stores(tree) != _oracle(expected) or ast.dump(tree) != ast.dump(expected):
            differ.append(name)
        compared += 1
    assert compared > 100 and not differ, differ


def test_a_dropped_statements_reads_leave_the_counts_of_every_scope_holding_it():
    tree = ast.parse(CASCADES["chain_of_dead_stores"])
    functions, _enclosing, loads, everywhere = nm._functions_and_loads(tree)
    (f,) = functions
    assert loads[id(f)] == {"x": 2, "a": 1, "b": 1} and everywhere == loads[id(f)]
    nm._remove_dead_stores(tree)
    assert nm._load_counts(tree) == {"x": 1}
