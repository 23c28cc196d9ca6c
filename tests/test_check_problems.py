"""`autograde check-problems`: the course's problems pass; a copy with one misspelling fails, naming the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from graders.cli import main
from graders.problemcheck import check_problems
from graders.spec import SpecError, load_problems

PROBLEMS = ROOT / "problems"


def test_the_problems_pass_the_static_checks_and_their_probe_ids_exist(monkeypatch):
    monkeypatch.chdir(ROOT)  # `autograde check-problems problems`: a relative folder (the default, absolute, is
    # checked by the whole check below)
    assert [str(f) for f in check_problems(Path("problems"), grade=False)] == []


@pytest.mark.slow
def test_check_problems_grades_the_reference_to_full_marks_and_the_blank_template_to_zero():
    done = CliRunner().invoke(main, ["check-problems", str(PROBLEMS)])
    assert done.exit_code == 0, done.output
    assert "all checks passed" in done.stdout


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "problems"
    shutil.copytree(PROBLEMS, copy, ignore=shutil.ignore_patterns("__pycache__", "hidden"))
    return copy


#: (file under problems/, text replaced, replacement, what the message must say)
BREAKAGES = {
    "judge": ("autodiff/problem.toml", 'judge = "time_ratio"', 'judge = "time_ration"', "judge 'time_ration'"),
    "probe": ("ops/problem.toml", 'probe = "op_neg"', 'probe = "op_negg"', "probe 'op_negg' is registered by no @probe"),
    "limits": ("network/problem.toml", "wall_seconds", "wall_secs", "[limits] 'wall_secs': unknown key"),
    "swap": ("autodiff/problem.toml", "[swap]", "[swap]\nfiles = 1", "[swap] 'files': unknown key"),
    "option": ("autodiff/problem.toml", "max_ratio = 3.3", "max_ration = 3.3", "'max_ration': unknown key"),
    "mutant": ("autodiff/mutants/quadratic_visited.py", '"quadratic-traversal"', '"quadratic-travesal"',
               "misconception 'quadratic-travesal' is not in"),
    "judge-misconception": ("autodiff/judges.py", 'misconception="', 'misconception="x-', "is not in"),
    "checkpoint": ("training/judges.py", 'CHECKPOINTS = {"accuracy"', 'CHECKPOINTS = {"acuracy"',
                   "CHECKPOINTS names 'acuracy', which is no probe"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_one_misspelling_fails_naming_the_file(tmp_path, breakage):
    rel, old, new, says = BREAKAGES[breakage]
    copy = _copy(tmp_path)
    target = copy / rel
    text = target.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    findings = [str(f) for f in check_problems(copy, grade=False)]
    assert findings, breakage
    assert any(str(target) in f and says in f for f in findings), findings


def test_probes_that_fail_to_import_are_named_and_hide_no_other_problems_finding(tmp_path):
    """Every problem's probes are imported in one child, each in a fork of it: probes that raise at import, or end
    their process, are each named with why; another problem's unregistered probe id is still found."""
    copy = _copy(tmp_path)
    (copy / "forward" / "probes.py").write_text("raise ImportError('no such helper')\n", encoding="utf-8")
    init = copy / "autodiff" / "probes" / "__init__.py"
    init.write_text("import os\nos._exit(3)\n" + init.read_text(encoding="utf-8"), encoding="utf-8")
    rel, old, new, says = BREAKAGES["probe"]
    (copy / rel).write_text((copy / rel).read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    findings = [str(f) for f in check_problems(copy, grade=False)]
    assert any(str(copy / "forward" / "probes.py") in f and "importing the probes failed: ImportError: no such helper"
               in f for f in findings), findings
    assert any(str(copy / "autodiff" / "probes") in f and "the import ended its process" in f for f in findings), findings
    assert any(str(copy / rel) in f and says in f for f in findings), findings
    assert len(findings) == 3, findings


def test_probes_whose_import_never_ends_are_named_and_the_others_still_checked(tmp_path, monkeypatch):
    """Each problem's import has its own time (PROBE_IMPORT_SECONDS): an import that loops is named as too slow, and
    the other problems' probe ids are still checked."""
    from graders import problemlint

    monkeypatch.setattr(problemlint, "PROBE_IMPORT_SECONDS", 2)
    copy = _copy(tmp_path)
    (copy / "forward" / "probes.py").write_text("while True:\n    pass\n", encoding="utf-8")
    rel, old, new, says = BREAKAGES["probe"]
    (copy / rel).write_text((copy / rel).read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    findings = [str(f) for f in check_problems(copy, grade=False)]
    assert any(str(copy / "forward" / "probes.py") in f and "took more than 2 s" in f for f in findings), findings
    assert any(str(copy / rel) in f and says in f for f in findings), findings
    assert len(findings) == 2, findings


def test_a_module_in_the_folder_check_problems_runs_from_is_not_imported_by_its_child(tmp_path, monkeypatch):
    """The child that imports the probes starts without the caller's folder on its path, as the sandboxed one:
    a `json.py` where an instructor runs `autograde check-problems` is not the standard library's."""
    (tmp_path / "json.py").write_text("raise SystemExit('the folder json.py ran')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert [str(f) for f in check_problems(PROBLEMS, grade=False)] == []


def test_a_symbol_the_reference_lacks_is_named(tmp_path):
    copy = _copy(tmp_path)
    target = copy / "autodiff" / "problem.toml"
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace('"backpropagate"', '"back_propagate"', 1), encoding="utf-8")
    findings = [str(f) for f in check_problems(copy, grade=False)]
    assert any("symbol 'back_propagate'" in f and str(target) in f for f in findings), findings


def test_loading_refuses_unknown_keys_and_non_positive_points_naming_the_file(tmp_path):
    copy = _copy(tmp_path)
    target = copy / "ops" / "problem.toml"
    target.write_text(target.read_text(encoding="utf-8").replace("[limits]", "[limits]\nmemory = 5", 1), encoding="utf-8")
    with pytest.raises(SpecError, match=r"ops/problem.toml: \[limits\] 'memory': unknown key"):
        load_problems(copy)
    target.write_text(target.read_text(encoding="utf-8").replace("memory = 5\n", ""), encoding="utf-8")
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace("points = ", "points = -", 1), encoding="utf-8")
    with pytest.raises(SpecError, match=r"ops/problem.toml: \[\[tests\]\] #1 'points': must be > 0, got -"):
        load_problems(copy)


def test_a_problem_brings_its_own_misconceptions_and_ids_stay_unique(tmp_path):
    from graders.catalogue import load_catalogue

    copy = _copy(tmp_path)
    mutant = copy / "autodiff" / "mutants" / "quadratic_visited.py"
    mutant.write_text(mutant.read_text(encoding="utf-8").replace('"quadratic-traversal"', '"visited-list-scan"', 1),
                      encoding="utf-8")
    assert any("visited-list-scan" in str(f) for f in check_problems(copy, grade=False))
    own = copy / "autodiff" / "misconceptions.toml"
    own.write_text('[visited-list-scan]\ntitle = "Visited set kept as a list"\nexplanation = "`x in list` is O(n)."\n'
                   'reread = "Lecture 4"\n', encoding="utf-8")
    assert [str(f) for f in check_problems(copy, grade=False)] == []
    assert load_catalogue(copy)["visited-list-scan"].title == "Visited set kept as a list"
    own.write_text(own.read_text(encoding="utf-8") + '\n[not-topological]\ntitle = "again"\n', encoding="utf-8")
    found = [str(f) for f in check_problems(copy, grade=False)]
    assert any("'not-topological' is already defined in" in f and str(own) in f for f in found), found



def test_grading_refuses_a_misspelled_problem_folder_naming_the_file(tmp_path, monkeypatch):
    """The static checks run before a problem is graded: a misspelled judge is a fault naming problem.toml (said
    once), not a raw error on every submission."""
    from graders import paths
    from graders.grade import GradeOptions, grade_submission

    copy = _copy(tmp_path)
    target = copy / "autodiff" / "problem.toml"
    target.write_text(target.read_text(encoding="utf-8").replace('judge = "time_ratio"', 'judge = "time_ration"', 1),
                      encoding="utf-8")
    monkeypatch.setattr(paths, "PROBLEMS", copy)
    (problem,) = grade_submission(ROOT / "reference", GradeOptions(problems=["autodiff"])).problems
    assert problem.fault and str(target) in problem.fault and "judge 'time_ration'" in problem.fault, problem.fault
    assert problem.score == 0


def test_a_probe_id_no_probe_registers_is_said_by_the_child(tmp_path):
    """Graded anyway (the child is told of a probe the probes do not register): that probe's outcome says so;
    the other probes still run."""
    from dataclasses import replace

    from graders.baseline import child_config, limits_for
    from graders.probe import run_child

    spec = load_problems(only=["autodiff"])[0]
    first = spec.tests[0]
    spec = replace(spec, tests=(first, replace(first, id="ghost", probe="no_such_probe")))
    run = run_child(child_config(spec, tmp_path / "run", 0, None), limits_for(spec, None))
    ghost, real = run.outcomes["no_such_probe"], run.outcomes[first.probe]
    assert ghost.status == "error" and ghost.error_type == "UnknownProbe" and "no_such_probe" in ghost.error_message
    assert real.status == "ok"
