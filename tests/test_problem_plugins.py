"""The lecture problems added as plugins (`forward`, `static_graph`, `manual_backprop`): what their generic tests
(reference full marks, blank 0, mutants named: test_grader_mutants.py; valid/ and buggy/ cases:
test_problem_cases.py; test_check_problems.py) do not show: hostile submissions that tried to earn points they did not."""

from __future__ import annotations

import pytest

from cases import Case, graded
from conftest import ROOT
from graders.spec import load_problems

HOSTILE = ROOT / "tests" / "files" / "hostile"


def _red_team(name: str) -> Case:
    """A red-team delta (tests/files/hostile/<name>.py) appended to the reference's project/digits_mlp.py, like a
    buggy case of `manual_backprop` (tests/cases.py); not in the problem's folder: no case of ours is hostile."""
    (spec,) = load_problems(only=["manual_backprop"])
    return Case(spec, "buggy", HOSTILE / f"{name}.py")


@pytest.mark.parametrize("name", ["manual_backprop_patch_given_train", "manual_backprop_knn_inputs_file"])
def test_digits_accuracy_comes_only_from_the_students_functions(name):
    """A zero backward with a correct trainer patched into the module's given `train` (red team), or with a
    `forward` that looks test images up among the training data: no accuracy points. The grader trains through
    the student's functions with its own loop, and evaluates the trained weights on test images the child never
    sees."""
    result = graded(_red_team(name))
    tests = {t.id: t for t in result.tests}
    assert not tests["digits_accuracy"].passed and tests["digits_accuracy"].score == 0, tests["digits_accuracy"].message
    assert result.score < result.max_score and result.fault is None


def test_patching_the_modules_given_code_is_listed_for_review(tmp_path):
    """The integrity screen lists assigning into the graded file's own module (its given `train`)."""
    from graders.integrity import screen_file

    case = _red_team("manual_backprop_patch_given_train")
    path = case.build(tmp_path / case.name) / case.problem.swap.file
    found = [f.describe() for f in screen_file(path, case.problem.swap.file)]
    assert any("train = ..." in f and "changes an imported module" in f for f in found), found
