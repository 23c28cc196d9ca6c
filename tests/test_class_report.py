"""The class report reads in a TA's order: what needs attention first (blank, errored, faulted, lowest),
then misconceptions, the student table, and the per-test pass rates collapsed at the end."""

from __future__ import annotations

from graders.gradebook_api import PassCount
from reports.class_report import LOWEST, ClassView, StudentLine, render_class
from reports.render import render_submission


def student(name, score, status="graded", error="", max_score=100.0):
    return StudentLine(name, status, score, max_score, {"autodiff": score}, 1.0, error, f"{name}/report.html")


def view(students):
    return ClassView(students=students, problems=[], tests=[PassCount("autodiff", "fan_out", "Fan-out", "hidden", 1, 2)],
                     misconceptions=[], grader_versions=["x"], generated_at="now")


def test_attention_lists_grader_faults_first_then_blank_error_and_the_lowest_and_nobody_else():
    students = [student("good", 95), student("half", 50), student("low", 20), student("lower", 5),
                student("blank", 0), student("crashed", 0, "error", "exited early with code 1"),
                student("grader", 0, "fault", "KeyError in the judge")]
    lines = view(students).needs_attention
    assert [(a.student.name, a.kind) for a in lines] == [
        ("grader", "fault"), ("blank", "blank"), ("crashed", "error"), ("lower", "low"), ("low", "low")]
    assert "grader fault — regrade" in lines[0].why and "KeyError" in lines[0].why
    assert "exited early with code 1" in lines[2].why


def test_only_the_lowest_few_are_listed_in_a_large_class():
    students = [student(f"s{i:03d}", 1 + i % 40) for i in range(200)]  # half the class below half the maximum
    low = [a for a in view(students).needs_attention if a.kind == "low"]
    assert len(low) == LOWEST
    assert sorted(a.student.score for a in low) == sorted(s.score for s in students)[:LOWEST]


def test_attention_comes_before_the_overview_and_the_pass_rates_are_collapsed():
    html = render_class(view([student("good", 95), student("blank", 0)]))
    assert html.index('id="needs-attention"') < html.index('id="overview"') < html.index('id="students"') \
        < html.index('<details id="tests">')
    listed = html[html.index('<table id="needs-attention">'):html.index("</table>", html.index('id="needs-attention"'))]
    assert 'href="blank/report.html"' in listed and "good" not in listed


def test_a_class_with_nothing_to_flag_says_so():
    html = render_class(view([student("good", 95), student("fine", 70)]))
    assert '<table id="needs-attention">' not in html and "none is blank or below half" in html


def test_misconception_explanations_render_their_markdown_and_scores_do_not_wrap():
    from graders.results import GradeResult, ProblemResult, TestResult

    tests = [TestResult("autodiff", "fan_out", "Fan-out", "gradient", 10, 0, "1.0, not 368.04", "not-topological"),
             TestResult("autodiff", "slides", "Slides", "gradient", 10, 10, "right")]
    problem = ProblemResult(id="autodiff", title="Autodiff", tests=tests, misconceptions=["not-topological"])
    html = render_submission(GradeResult(submission="s", problems=[problem]))
    assert "the sum over <em>all</em> of its users" in html and "*all*" not in html
    assert '<span style="white-space: nowrap">10 / 20</span>' in html
