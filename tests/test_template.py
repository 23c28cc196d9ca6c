"""Solution markers: stripping, ownership by problem, and clear errors."""

from pathlib import Path

import pytest

from graders.spec import ProblemSpec, SwapSpec
from graders.template import MarkerError, find_blocks, strip_solutions

PROBLEMS = [
    ProblemSpec(
        id="autodiff", title="", order=1, folder=Path("."),
        swap=SwapSpec(file="m/a.py", module="m.a", symbols=("topological_sort", "backpropagate")),
    ),
    ProblemSpec(
        id="ops", title="", order=2, folder=Path("."),
        swap=SwapSpec(file="m/f.py", module="m.f", symbols=("Neg.forward",)),
    ),
]

SOURCE = '''\
def topological_sort(v):
    """doc"""
    # hint: use a stack
    # BEGIN SOLUTION
    return [v]
    # END SOLUTION


def given():
    return 1
'''


def test_block_becomes_not_implemented_at_its_indentation():
    out = strip_solutions(SOURCE, "a.py", "m/a.py", PROBLEMS)
    assert '    raise NotImplementedError("autodiff: implement topological_sort")\n' in out
    assert "return [v]" not in out and "BEGIN SOLUTION" not in out
    assert "# hint: use a stack" in out  # prompt comments before the block are kept
    assert "def given():\n    return 1\n" in out
    compile(out, "a.py", "exec")


def test_methods_are_owned_by_dotted_symbol():
    src = "class Neg:\n    @staticmethod\n    def forward(ctx, a):\n        # BEGIN SOLUTION\n        return -a\n        # END SOLUTION\n"
    (block,) = find_blocks(src, "f.py", "m/f.py", PROBLEMS)
    assert (block.qualname, block.problem, block.begin, block.end) == ("Neg.forward", "ops", 4, 6)


def test_only_strips_the_selected_problems():
    assert strip_solutions(SOURCE, "a.py", "m/a.py", PROBLEMS, only=["ops"]) == SOURCE


@pytest.mark.parametrize(
    "src, message",
    [
        ("def f():\n    # BEGIN SOLUTION\n    return 1\n", "a.py:2: BEGIN SOLUTION is never closed"),
        ("def f():\n    return 1\n    # END SOLUTION\n", "a.py:3: END SOLUTION without BEGIN"),
        (
            "def topological_sort():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n    x = 1\n    # END SOLUTION\n",
            "a.py:3: nested BEGIN SOLUTION (block opened at line 2)",
        ),
        ("def other():\n    # BEGIN SOLUTION\n    x = 1\n    # END SOLUTION\n", "a.py:2: solution block in 'other' belongs to no problem"),
    ],
)
def test_marker_errors_name_file_and_line(src, message):
    with pytest.raises(MarkerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        strip_solutions(src, "a.py", "m/a.py", PROBLEMS)
