"""The grader on buggy and valid submissions written for this suite (not the instructor's mutants).

Each variant in tests/files/submissions/<problem>_<name>/ holds one student file.
Valid variants must get full marks, buggy ones must lose points on the right
problem and, for the contract's misconceptions, carry the right id; every
hidden test must fail on the blank template and on at least one buggy variant.
The course-style autodiff variants (`autodiff_course_*`) are graded, with their
exact verdicts, in test_autodiff_verdicts.py.
"""

import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from graders.grade import GradeOptions, grade_submission
from graders.offering import grading_offering
from graders.spec import load_problems
from test_autodiff_verdicts import COURSE

SUBMISSIONS = ROOT / "tests" / "files" / "submissions"
VALID = {
    "autodiff_kahn", "autodiff_dependency_count", "autodiff_sort_by_id", "autodiff_llmsys_style",
    "ops_alternative", "network_alternative", "training_alternative", "training_no_zero_grad",
}
#: buggy variant -> the CONTRACT §6 (or catalogue) misconception it must be told about (None: just lose points)
BUGGY = {
    "autodiff_dfs_preorder": "not-topological",
    "autodiff_assign_adjoint": "no-fanout-accumulation",
    "autodiff_all_paths": "path-recursion",
    "autodiff_recursive": "recursion-limit",
    "autodiff_raised_limit": "recursion-limit",
    "autodiff_constants_in_order": "constant-not-skipped",
    "autodiff_quadratic": "quadratic-traversal",
    "autodiff_quadratic_prepend_concat": "quadratic-traversal",
    "autodiff_quadratic_backprop_list_adjoints": "quadratic-traversal",
    "autodiff_ignores_deriv": "seed-derivative-ignored",
    "ops_forward_bugs": None,
    "ops_backward_bugs": None,
    "network_transposed": None,
    "network_no_relu": None,
    "network_dropout_always": "dropout-in-eval",
    "network_detached": None,
    "training_sum_bce": None,
    "training_double_backward": "no-zero-grad",
    "training_whole_set": "whole-set-every-batch",
    "training_no_eval": "dropout-in-eval",
    "training_no_step": None,
}


def problem_of(variant: str) -> str:
    return variant.split("_", 1)[0]


@pytest.fixture(scope="module")
def graded():
    """Every variant graded once, on its own problem."""
    results = {}
    for variant in sorted(VALID | set(BUGGY)):
        problem = problem_of(variant)
        offering = "minitorch" if problem == "ops" else None  # the HW2 offerings give the tensor Functions
        result = grade_submission(SUBMISSIONS / variant, GradeOptions(problems=[problem], offering=offering))
        (problem,) = result.problems
        results[variant] = problem
    return results


def test_every_variant_is_listed():
    on_disk = {p.name for p in SUBMISSIONS.iterdir() if p.is_dir()}
    assert on_disk == VALID | set(BUGGY) | set(COURSE)


@pytest.mark.parametrize("variant", sorted(VALID))
def test_valid_alternatives_get_full_marks(graded, variant):
    problem = graded[variant]
    failed = [(t.name, t.message) for t in problem.tests if not t.passed]
    assert not failed and problem.score == problem.max_score
    assert problem.misconceptions == []


@pytest.mark.parametrize("variant", sorted(BUGGY))
def test_buggy_variants_lose_points_and_are_diagnosed(graded, variant):
    problem = graded[variant]
    assert problem.score < problem.max_score
    expected = BUGGY[variant]
    if expected is not None:
        assert expected in problem.misconceptions, (problem.misconceptions, [t.message for t in problem.tests if not t.passed])
        assert problem.misconceptions[0] == expected
        tagged = [t for t in problem.tests if t.misconception == expected]
        assert tagged and all(not t.passed for t in tagged)


def test_every_hidden_test_fails_on_the_template_and_on_some_buggy_variant(graded):
    template = grade_submission(ROOT / "student_template", GradeOptions())
    for problem in template.problems:
        assert all(not t.passed for t in problem.tests), problem.id
    variants = {problem_of(v) for v in VALID | set(BUGGY)}
    for spec in load_problems():
        if spec.id not in variants:  # a folder problem: its own buggy/ files, in the test below
            continue
        # the tests the variants' offerings grade (an inline-loss offering's `loop_loss` has its buggy
        # course-style variant in test_training_verdicts.py)
        graded_ids = [t.id for t in spec.tests if any(t.id == u.id for p in graded.values() for u in p.tests)]
        failing = {t.id for v, p in graded.items() if v in BUGGY and p.id == spec.id for t in p.tests if not t.passed}
        never = [t for t in graded_ids if t not in failing]
        assert graded_ids and not never, f"{spec.id}: hidden tests no buggy variant fails: {never}"


def test_a_broken_autodiff_costs_only_autodiff(tmp_path):
    submission = tmp_path / "broken_autodiff"
    for rel in ("minitorch/tensor_functions.py", "project/run_sentiment.py"):
        (submission / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "reference" / rel, submission / rel)
    shutil.copy(SUBMISSIONS / "autodiff_dfs_preorder" / "minitorch" / "autodiff.py", submission / "minitorch" / "autodiff.py")
    result = grade_submission(submission, GradeOptions())
    scores = {p.id: (p.score, p.max_score) for p in result.problems}
    assert scores["autodiff"][0] < scores["autodiff"][1]
    for pid in sorted(set(scores) - {"autodiff"}):  # the offering's other problems
        assert scores[pid][0] == scores[pid][1], (pid, [t.message for p in result.problems if p.id == pid for t in p.tests if not t.passed])


def test_grading_is_deterministic():
    first = grade_submission(SUBMISSIONS / "autodiff_dfs_preorder", GradeOptions(problems=["autodiff"]))
    second = grade_submission(SUBMISSIONS / "autodiff_dfs_preorder", GradeOptions(problems=["autodiff"]))
    summary = lambda r: [(t.id, t.score, t.misconception) for p in r.problems for t in p.tests if t.kind != "complexity"]
    assert summary(first) == summary(second)
    assert first.score == second.score


def test_grading_never_imports_torch():
    for folder in ("graders", "problems", "reports", "reference/minitorch", "reference/project"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "import torch" not in text, path


def _mutant_cases():
    from graders.assemble import mutant_files

    return [(spec, path) for spec in load_problems() for path in mutant_files(spec)]


@pytest.mark.parametrize("spec, path", _mutant_cases(), ids=lambda v: getattr(v, "stem", getattr(v, "id", "")))
def test_each_instructor_mutant_is_named_when_submitted(spec, path, tmp_path):
    """The diagnosis machinery on its own mutants: each loses points and is named (sanity, not generality)."""
    from graders.baseline import misconception_of, mutant_source

    submission = tmp_path / path.stem
    target = submission / spec.swap.file
    target.parent.mkdir(parents=True)
    shutil.copy(mutant_source(spec, path), target)
    (problem,) = grade_submission(submission, GradeOptions(offering=grading_offering(spec.id), problems=[spec.id])).problems
    assert problem.score < problem.max_score
    assert misconception_of(path) in problem.misconceptions, [(t.id, t.message) for t in problem.tests if not t.passed]


# ------------------------------------------- the problem folders' own valid and buggy student files


def _folder_cases(kind: str):
    """(problem, file) for every complete student file in `problems/<id>/<kind>/` (valid/ or buggy/)."""
    return [(spec, path) for spec in load_problems() for path in sorted((spec.folder / kind).glob("*.py"))]


def _case_id(value):
    return getattr(value, "stem", getattr(value, "id", ""))


@pytest.fixture(scope="module")
def folder_graded(tmp_path_factory):
    """Every valid/ and buggy/ file of every problem folder, graded once on its problem (in the first offering
    that grades it): {path: ProblemResult}."""
    results = {}
    for spec, path in _folder_cases("valid") + _folder_cases("buggy"):
        submission = tmp_path_factory.mktemp(path.stem)
        target = submission / spec.swap.file
        target.parent.mkdir(parents=True)
        shutil.copy(path, target)
        options = GradeOptions(offering=grading_offering(spec.id), problems=[spec.id])
        (results[path],) = grade_submission(submission, options).problems
    return results


def _expected_misconception(path):
    """`EXPECT = "<id>"` (or None) of a buggy file, read without running it."""
    import ast

    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["EXPECT"]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path}: no EXPECT = ... line")


@pytest.mark.parametrize("spec, path", _folder_cases("valid"), ids=_case_id)
def test_each_valid_file_of_a_problem_gets_full_marks(spec, path, folder_graded):
    """problems/<id>/valid/*.py: correct solutions written unlike the reference; full marks, nothing named."""
    problem = folder_graded[path]
    failed = [(t.id, t.message) for t in problem.tests if not t.passed]
    assert not failed and problem.score == pytest.approx(problem.max_score) and problem.misconceptions == []


@pytest.mark.parametrize("spec, path", _folder_cases("buggy"), ids=_case_id)
def test_each_buggy_file_of_a_problem_loses_points_and_is_named(spec, path, folder_graded):
    """problems/<id>/buggy/*.py: plausible student bugs, unlike the mutants; each loses points and, with
    `EXPECT = "<id>"`, is told that misconception (on failed tests only); with `EXPECT = None`, none."""
    expected = _expected_misconception(path)
    problem = folder_graded[path]
    assert problem.score < problem.max_score
    failures = [(t.id, t.message) for t in problem.tests if not t.passed]
    if expected is None:  # a slip with no misconception of its own: none is named (a wrong name misleads)
        assert problem.misconceptions == [], (problem.misconceptions, failures)
    else:
        assert expected in problem.misconceptions, failures
    assert all(not t.passed for t in problem.tests if t.misconception is not None)


def test_every_hidden_test_of_a_folder_problem_fails_on_one_of_its_buggy_files(folder_graded):
    """A problem without variants in tests/files/submissions proves each hidden test with its own buggy/ files:
    every test fails on at least one of them (a test nothing fails cannot tell a bug)."""
    variants = {problem_of(v) for v in VALID | set(BUGGY)}
    for spec in load_problems():
        if spec.id in variants:
            continue  # test_every_hidden_test_fails_on_the_template_and_on_some_buggy_variant
        buggy = [folder_graded[path] for s, path in _folder_cases("buggy") if s.id == spec.id]
        assert buggy, f"{spec.id}: no buggy/ files and no suite variants"
        failing = {t.id for problem in buggy for t in problem.tests if not t.passed}
        never = [t.id for t in buggy[0].tests if t.id not in failing]
        assert not never, f"{spec.id}: hidden tests no buggy file fails: {never}"
