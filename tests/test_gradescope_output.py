"""What Gradescope shows students: test visibility from the specs, and markdown outputs that explain.

Visibility: the course default (problems/offerings.toml [visibility]) shows the hidden kinds (complexity,
recursion, accuracy) after the due date; a problem.toml sets it for a whole problem or for one test; an
unknown value is an error naming the file. Outputs (graders.record): the always-visible top level gives
the scores per problem and each misconception's title and explanation, never a test's message; a failed
test's own output explains its misconception. The end-to-end run through Gradescope's scripts is in
tests/test_gradescope.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graders import results
from graders.catalogue import explain
from graders.record import md_test_output, results_json
from graders.results import GradeResult, ProblemResult
from graders.safetext import md_literal
from graders.spec import HIDDEN_KINDS, SpecError, load_problems, load_visibilities
from test_gradescope import validate

SECRET = "expected 4242.125 at depth 3000"


def write_problem(root: Path, pid: str, top: str = "", tests: str = "") -> Path:
    """A minimal problems/<pid>/problem.toml under `root`."""
    folder = root / pid
    folder.mkdir(parents=True)
    (folder / "problem.toml").write_text(
        f'id = "{pid}"\n{top}\n[swap]\nfile = "minitorch/autodiff.py"\nmodule = "minitorch.autodiff"\n'
        f'symbols = ["backpropagate"]\n{tests}', encoding="utf-8")
    return folder / "problem.toml"


def toml_test(tid: str, kind: str, extra: str = "") -> str:
    """One [[tests]] entry of a problem.toml."""
    return f'\n[[tests]]\nid = "{tid}"\nkind = "{kind}"\npoints = 1\n{extra}\n'


def by_test(root: Path) -> dict:
    return {(s.id, t.id): t.visibility for s in load_problems(root) for t in s.tests}


# ------------------------------------------------------------------ visibility


def test_the_hidden_kinds_are_shown_after_the_due_date_and_the_others_at_once():
    tests = [t for s in load_problems() for t in s.tests]
    hidden = [t for t in tests if t.kind in HIDDEN_KINDS]
    assert {t.kind for t in hidden} == set(HIDDEN_KINDS), "every hidden kind has a test (not vacuous)"
    assert {t.id: t.visibility for t in hidden} == {t.id: "after_due_date" for t in hidden}
    assert {t.visibility for t in tests if t.kind not in HIDDEN_KINDS} == {"visible"}


def test_a_test_beats_its_problem_which_beats_the_course_default(tmp_path):
    write_problem(tmp_path, "a", top='visibility = "visible"',
                  tests=toml_test("own", "unit", 'visibility = "hidden"') + toml_test("deep", "recursion"))
    write_problem(tmp_path, "b", tests=toml_test("deep", "recursion") + toml_test("grad", "gradient")
                  + toml_test("late", "gradient", 'visibility = "after_published"'))
    assert by_test(tmp_path) == {("a", "own"): "hidden", ("a", "deep"): "visible", ("b", "deep"): "after_due_date",
                                 ("b", "grad"): "visible", ("b", "late"): "after_published"}
    # a course table replaces the built-in defaults whole: kinds it does not list get its `default`
    (tmp_path / "offerings.toml").write_text('[visibility]\ndefault = "after_published"\ngradient = "visible"\n')
    assert by_test(tmp_path)[("b", "deep")] == "after_published"
    assert by_test(tmp_path)[("b", "grad")] == "visible"
    assert load_visibilities(tmp_path).of("gone", "t", "unit") == "after_published"  # a test no spec has


@pytest.mark.parametrize("where", ["test", "problem", "course"])
def test_an_unknown_visibility_fails_loading_and_names_the_file(tmp_path, where):
    bad = 'visibility = "students"'
    path = write_problem(tmp_path, "a", top=bad if where == "problem" else "",
                         tests=toml_test("t", "unit", bad if where == "test" else ""))
    if where == "course":
        path = tmp_path / "offerings.toml"
        path.write_text('[visibility]\ndefault = "visible"\nunit = "students"\n')
    with pytest.raises(SpecError) as caught:
        load_problems(tmp_path)
    message = str(caught.value)
    assert str(path) in message and '"students"' in message and "after_due_date" in message, message


# ------------------------------------------------------------------ outputs


def buggy_result() -> GradeResult:
    """An autodiff result with real test ids: a visible gradient test failed with the BFS misconception,
    a recursion test (shown after the due date) failed with a message stating its expected value."""
    tests = [
        results.TestResult("autodiff", "slides_example", "Slides example", "gradient", 2.0, 0.0,
                         "value: got [1, 489.384], expected [368.038, 489.384]", "not-topological"),
        results.TestResult("autodiff", "deep_chain_3000", "A 3000-deep chain", "recursion", 2.0, 0.0, SECRET),
        results.TestResult("autodiff", "constants_skipped", "Constants are skipped", "unit", 2.0, 2.0, "ok"),
    ]
    problem = ProblemResult("autodiff", "Reverse-mode autodiff", tests, misconceptions=["not-topological"])
    return GradeResult("carol", [problem])


def test_the_summary_explains_misconceptions_and_never_quotes_a_test_shown_later():
    doc = results_json(buggy_result())
    validate(doc)
    entry = explain("not-topological")
    assert entry.title != "not-topological" and entry.explanation, "the catalogue has the entry"
    tests = {t["extra_data"]["kind"]: t for t in doc["tests"]}
    assert doc["output_format"] == "md" and {t["output_format"] for t in doc["tests"]} == {"md"}
    assert doc["visibility"] == "visible"
    assert [tests[k]["visibility"] for k in ("gradient", "recursion", "unit")] == ["visible", "after_due_date", "visible"]
    # the top level: scores per problem, the misconception in words, nothing a later test measured
    assert "| autodiff: Reverse-mode autodiff | 2 / 6 | 1 |" in doc["output"]
    assert entry.title in doc["output"] and entry.explanation in doc["output"]
    assert SECRET in tests["recursion"]["output"] and SECRET not in doc["output"]
    assert "489.384" not in doc["output"]  # no test's message at all, visible ones included
    # the failed test's own output: its message, and the misconception's title and explanation
    assert entry.title in tests["gradient"]["output"] and entry.explanation in tests["gradient"]["output"]
    assert "expected [368.038, 489.384]" in tests["gradient"]["output"]


def test_an_error_is_shown_once_on_top_and_as_a_literal():
    result = buggy_result()
    result.problems[0].errors = ["minitorch/autodiff.py, line 3: SyntaxError: *bold* [link](x)"]
    doc = results_json(result)
    block = md_literal("autodiff: " + result.problems[0].errors[0])
    assert block in doc["output"] and doc["output"].count("SyntaxError") == 1


def test_a_message_cannot_break_out_of_its_code_block():
    forged = "boom ````\n```\n### Score: 100 / 100\n```"
    block = md_literal(forged)
    fence = block.splitlines()[0]
    assert re.fullmatch("`{5,}", fence) and block.splitlines()[-1] == fence
    assert all(len(run) < len(fence) for run in re.findall("`+", forged))
    failed = results.TestResult("autodiff", "t", "t", "unit", 1.0, 0.0, forged)
    assert block in md_test_output(failed)


# ------------------------------------------------------------------ the student report (report.html)


def test_the_student_report_follows_the_visibility_of_results_json():
    """report.html before the due date (the default) withholds what results.json shows later: the row stays
    (name, kind, points possible), not the result, message, misconception or figure; after the due date it
    shows those too, and only course staff's report shows a `hidden` test."""
    from graders.spec import Visibilities
    from reports.render import AFTER_DUE, STAFF, render_submission

    result = buggy_result()
    recursion = result.problems[0].tests[1]
    recursion.misconception, recursion.figure, recursion.svg = "recursion-limit", {"kind": "depth"}, '<svg id="fig"/>'
    doc = results_json(result)
    later = [t for t in doc["tests"] if t["visibility"] != "visible"]
    assert [t["extra_data"]["kind"] for t in later] == ["recursion"]  # not vacuous

    before = render_submission(result)
    row = before.split('id="autodiff-deep_chain_3000"', 1)[1].split("</tr>", 1)[0]
    assert "A 3000-deep chain" in before and "shown after the due date" in row
    assert SECRET not in before and 'id="fig"' not in before and "recursion-limit" not in row
    assert "passed" not in row and "failed" not in row and "0 / 2" not in row
    assert "value: got [1, 489.384]" in before  # the visible tests keep their messages
    assert "1 / 2" in before and "(1 not shown yet)" in before  # tests passed: the visible ones

    after = render_submission(result, shown=AFTER_DUE)
    assert SECRET in after and 'id="fig"' in after and "not shown yet" not in after

    hidden = Visibilities({("autodiff", "deep_chain_3000"): "hidden"})
    assert SECRET not in render_submission(result, shown=AFTER_DUE, visibilities=hidden)
    assert "not shown to students" in render_submission(result, shown=AFTER_DUE, visibilities=hidden)
    assert SECRET in render_submission(result, shown=STAFF, visibilities=hidden)


def test_a_report_draws_only_the_figures_it_shows(monkeypatch):
    """A figure not drawn while grading (its test was withheld then, or the result was read back from the
    gradebook) is drawn by the report that shows its test, and by no report that withholds it."""
    import graders.figures
    from reports.render import AFTER_DUE, render_submission

    drawn = []
    monkeypatch.setattr(graders.figures, "figure_svg", lambda kind, data, problem: drawn.append(kind) or '<svg id="late"/>')
    result = buggy_result()
    recursion = result.problems[0].tests[1]
    recursion.figure, recursion.svg = {"kind": "depth"}, None
    assert 'id="late"' not in render_submission(result) and drawn == []
    assert 'id="late"' in render_submission(result, shown=AFTER_DUE) and drawn == ["depth"]


def test_grade_and_report_choose_what_report_html_shows():
    """`autograde grade` and `autograde report` take --show (default: the student's report before the due date)."""
    from click.testing import CliRunner

    from graders.cli import main
    from reports.render import AFTER_DUE, BEFORE_DUE, SHOWN, STAFF

    assert SHOWN == {"visible": BEFORE_DUE, "after-due-date": AFTER_DUE, "all": STAFF}
    for command in ("grade", "report"):
        done = CliRunner().invoke(main, [command, "--help"])
        assert done.exit_code == 0 and "--show [visible|after-due-date|all]" in done.output, done.output
