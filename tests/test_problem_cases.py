"""Every problem's own valid and buggy cases (problems/<id>/valid/, problems/<id>/buggy/: tests/cases.py),
graded on their problem: valid ones written unlike the reference keep full marks with no label, buggy ones
lose points and are told their misconception (or none, when none fits). The suite lists nothing: a new
problem's cases are found in its folder."""

import dataclasses
import re
import shutil

import pytest

from cases import _case, case_named, check, graded, problem_cases
from conftest import ROOT
from graders.spec import load_problems

CASES = problem_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_gets_the_verdict_it_deserves(case):
    check(case, graded(case))


def test_cases_are_found_in_every_problem_folder():
    """Each problem has buggy cases, and the listing is the folders' content (nothing listed by hand)."""
    by_problem = {p.id: [c for c in CASES if c.problem.id == p.id] for p in load_problems()}
    assert all(any(c.kind == "buggy" for c in cases) for cases in by_problem.values()), \
        sorted(p for p, cases in by_problem.items() if not any(c.kind == "buggy" for c in cases))
    for problem in load_problems():
        on_disk = {p.stem if p.is_file() else p.name for kind in ("valid", "buggy") if (problem.folder / kind).is_dir()
                   for p in (problem.folder / kind).iterdir() if p.suffix == ".py" or p.is_dir()} - {"__pycache__"}
        assert on_disk == {c.name for c in by_problem[problem.id]}, problem.id


def test_the_check_fails_on_a_verdict_the_case_does_not_deserve():
    """The check itself can fail, naming the case's file and the verdict it got: a buggy case's result with another
    name expected, with none expected, with a test it fails said to pass; and as if it were valid."""
    case = case_named("autodiff/buggy/recursive")
    result = graded(case)
    check(case, result)
    wrong = [dataclasses.replace(case, expect="not-topological"), dataclasses.replace(case, expect=None),
             dataclasses.replace(case, passes=frozenset({"deep_chain_10000"})),
             dataclasses.replace(case, kind="valid", labels=frozenset())]
    for other in wrong:
        with pytest.raises(AssertionError, match=r"problems/autodiff/buggy/recursive\.py: .*\ngot 35 / 40"):
            check(other, result)


def test_a_new_problems_cases_are_found_with_no_edit_outside_its_folder(tmp_path):
    """A problem folder added with its valid/ and buggy/ cases: listed, with their expectations, by the same
    discovery this file parametrizes over (no list of problems or cases anywhere in the tests)."""
    problems = tmp_path / "problems"
    shutil.copytree(ROOT / "problems", problems, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(problems / "forward", problems / "dual_numbers")
    toml = problems / "dual_numbers" / "problem.toml"
    toml.write_text(re.sub(r'(?m)^id = "forward"', 'id = "dual_numbers"', toml.read_text(encoding="utf-8")),
                    encoding="utf-8")
    (problems / "dual_numbers" / "buggy" / "new_slip.py").write_text(
        '"""A slip added with the folder."""\nEXPECT = None\nFAILS = ["product_rule"]\n', encoding="utf-8")
    found = {c.id: c for c in problem_cases(root=problems)}
    ours = {i for i in found if i.startswith("dual_numbers/")}
    forward = {i.replace("forward/", "dual_numbers/", 1) for i in found if i.startswith("forward/")}
    assert ours == forward | {"dual_numbers/buggy/new_slip"}
    assert found["dual_numbers/buggy/new_slip"].fails == frozenset({"product_rule"})
    assert found["dual_numbers/buggy/new_slip"].expect is None


def test_a_case_over_a_base_is_the_base_with_its_own_definitions_after_it(tmp_path):
    """BASE = "<kind>/<name>": the case's file is its base's composed file (the base's code, not its expectations)
    with the case's EDITS and definitions after it; a base that is no case of the problem, or bases that come back
    to the case, fail naming the case's file."""
    case = case_named("autodiff/buggy/course_overwrite")
    composed = case.files()["minitorch/autodiff.py"].decode("utf-8")
    assert case.base == "valid/course_postorder" and case.score is None and case.labels == {"no-fanout-accumulation"}
    assert composed.startswith(case_named("autodiff/valid/course_postorder").composed() + "\n\n# ---- case autodiff/buggy/")
    assert "def backpropagate" in case.delta() and "def topological_sort" in case.delta()  # the base's, to append
    problem = dataclasses.replace(case.problem, folder=tmp_path)
    (tmp_path / "buggy").mkdir()
    for name, base in (("orphan", "valid/nowhere"), ("a", "buggy/b"), ("b", "buggy/a")):
        (tmp_path / "buggy" / f"{name}.py").write_text(f'EXPECT = None\nBASE = "{base}"\n', encoding="utf-8")
    for name, message in (("orphan", r"buggy/orphan\.py: BASE: no delta case 'valid/nowhere' of autodiff"),
                          ("a", r"buggy/a\.py: BASE: a cycle: autodiff/buggy/a -> autodiff/buggy/b -> autodiff/buggy/a")):
        with pytest.raises(AssertionError, match=message):
            _case(problem, "buggy", tmp_path / "buggy" / f"{name}.py").files()


@pytest.mark.parametrize("problem", [p.id for p in load_problems()])
def test_every_hidden_test_fails_on_some_buggy_case(problem):
    """A hidden test no buggy case fails cannot be shown to tell a bug (the graded tests of each offering)."""
    results = [graded(c) for c in CASES if c.problem.id == problem and c.kind == "buggy"]
    failing = {t.id for r in results for t in r.tests if not t.passed}
    graded_ids = {t.id for r in results for t in r.tests}
    assert graded_ids and not graded_ids - failing, sorted(graded_ids - failing)
