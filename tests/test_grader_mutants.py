"""The grader on whole submissions and on the instructor's mutants: the blank template fails every hidden
test, a broken autodiff costs only autodiff, grading is deterministic and never imports torch, and each
instructor mutant is named when submitted. Each problem's own valid and buggy cases (problems/<id>/valid/,
problems/<id>/buggy/) are graded, with their verdicts, in test_problem_cases.py.
"""

import shutil

import pytest

from cases import case_named, graded
from conftest import ROOT
from graders.grade import GradeOptions, grade_submission
from graders.spec import load_problems


def test_every_hidden_test_fails_on_the_template():
    template = grade_submission(ROOT / "student_template", GradeOptions())
    for problem in template.problems:
        assert all(not t.passed for t in problem.tests), problem.id


def test_a_broken_autodiff_costs_only_autodiff(tmp_path):
    submission = tmp_path / "broken_autodiff"
    for rel in ("minitorch/tensor_functions.py", "project/run_sentiment.py"):
        (submission / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "reference" / rel, submission / rel)
    case_named("autodiff/buggy/dfs_preorder").build(submission)  # minitorch/autodiff.py
    result = grade_submission(submission, GradeOptions())
    scores = {p.id: (p.score, p.max_score) for p in result.problems}
    assert scores["autodiff"][0] < scores["autodiff"][1]
    for pid in sorted(set(scores) - {"autodiff"}):  # the offering's other problems
        assert scores[pid][0] == scores[pid][1], (pid, [t.message for p in result.problems if p.id == pid for t in p.tests if not t.passed])


def test_grading_is_deterministic(tmp_path):
    """The same submission graded twice gets the same verdicts: once now, once as its problem's case (the
    `graded` of tests/cases.py, the same grading in the same offering, done once per run and shared with
    test_problem_cases.py, which grades this case anyway). Six gradings of a submission buggy in every problem,
    under load and compared in full: test_determinism.py."""
    case = case_named("autodiff/buggy/dfs_preorder")
    first = graded(case)
    (second,) = grade_submission(case.build(tmp_path / "dfs_preorder"), GradeOptions(problems=["autodiff"])).problems

    def summary(p):
        return [(t.id, t.score, t.misconception) for t in p.tests if t.kind != "complexity"]

    assert first.id == second.id == "autodiff" and first.fault is None and second.fault is None
    assert summary(first) == summary(second)
    assert first.score == second.score < second.max_score


def test_grading_never_imports_torch():
    for folder in ("graders", "problems", "reports", "reference/minitorch", "reference/project"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "import torch" not in text, path


def _mutant_cases():
    from graders.assemble import mutant_files

    return [(spec, path) for spec in load_problems() for path in mutant_files(spec)]


@pytest.mark.parametrize("spec, path", _mutant_cases(), ids=lambda v: getattr(v, "stem", getattr(v, "id", "")))
def test_each_instructor_mutant_is_named_on_its_own_run(spec, path):
    """The diagnosis machinery on its own mutants: the mutant's cached run, judged as a student's run is, loses
    points and is named (sanity, not generality; the child is not run again: the problems' cases grade end to
    end, tests/test_problem_cases.py)."""
    from graders.baseline import misconception_of, mutant_runs, problem_hooks, reference_run
    from graders.score import score_problem

    reference, mutants = reference_run(spec), mutant_runs(spec)
    (run,) = [r for name, _, r in mutants if name == path.stem]
    problem = score_problem(spec, run, reference, lambda: mutants, dict(getattr(problem_hooks(spec), "JUDGES", {})))
    assert problem.score < problem.max_score
    assert misconception_of(path) in problem.misconceptions, [(t.id, t.message) for t in problem.tests if not t.passed]
