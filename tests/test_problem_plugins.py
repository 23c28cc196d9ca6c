"""The lecture problems added as plugins (`forward`, `static_graph`, `manual_backprop`): what their generic tests
(reference full marks, blank 0, mutants named: test_grader_mutants.py; valid/ and buggy/ cases:
test_problem_cases.py; test_check_problems.py) do not show: hostile submissions that tried to earn points they did not."""

from __future__ import annotations

import pytest

from conftest import ROOT
from graders.grade import GradeOptions, grade_submission

HOSTILE = ROOT / "tests" / "files" / "hostile"


def _graded(name: str, problem: str):
    (result,) = grade_submission(HOSTILE / name, GradeOptions(offering="all", problems=[problem])).problems
    return result, {t.id: t for t in result.tests}


@pytest.mark.parametrize("name", ["manual_backprop_patch_given_train", "manual_backprop_knn_inputs_file"])
def test_digits_accuracy_comes_only_from_the_students_functions(name):
    """A zero backward with a correct trainer patched into the module's given `train` (red team), or with a
    `forward` that looks test images up among the training data: no accuracy points. The grader trains through
    the student's functions with its own loop, and evaluates the trained weights on test images the child never
    sees."""
    result, tests = _graded(name, "manual_backprop")
    assert not tests["digits_accuracy"].passed and tests["digits_accuracy"].score == 0, tests["digits_accuracy"].message
    assert result.score < result.max_score and result.fault is None


def test_patching_the_modules_given_code_is_listed_for_review():
    """The integrity screen lists assigning into the graded file's own module (its given `train`)."""
    from graders.integrity import screen_file

    path = HOSTILE / "manual_backprop_patch_given_train" / "project" / "digits_mlp.py"
    found = [f.describe() for f in screen_file(path, "project/digits_mlp.py")]
    assert any("train = ..." in f and "changes an imported module" in f for f in found), found
