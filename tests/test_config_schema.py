"""One declared schema for problem.toml and offerings.toml (graders.schema, issue 20): loading refuses a file that
breaks it with a message naming the file, the table and the key, and `check-problems` reports the very same
message as a finding (at the key's line). One Limits type from problem.toml to the child."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from graders import judgescan, toml
from graders.cli import main
from graders.offering import load_offerings
from graders.problemcheck import check_problems
from graders.schema import offerings_issues, problem_issues
from graders.spec import CourseVisibility, SpecError, load_problem, load_problems

PROBLEMS = ROOT / "problems"


def _root_with(tmp_path: Path, *problem_ids: str) -> Path:
    """A problems folder holding copies of the given problem folders and the shared catalogue (no offerings)."""
    root = tmp_path / "problems"
    root.mkdir()
    shutil.copy(PROBLEMS / "misconceptions.toml", root)
    for pid in problem_ids:
        shutil.copytree(PROBLEMS / pid, root / pid, ignore=shutil.ignore_patterns("__pycache__", "hidden"))
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line(path: Path, text: str) -> int:
    """The first line of `path` holding `text`."""
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def _findings(root: Path) -> list:
    return [str(f) for f in check_problems(root, grade=False)]


def _refused_alike(path: Path, load, root: Path, message: str) -> None:
    """Loading raises a SpecError with the line `path: message`; check-problems reports `path:LINE: message`."""
    with pytest.raises(SpecError) as caught:
        load()
    lines = str(caught.value).splitlines()
    assert f"{path}: {message}" in lines, lines
    found = _findings(root)
    assert any(re.fullmatch(re.escape(str(path)) + r"(:\d+)?: " + re.escape(message), f) for f in found), found


# ------------------------------------------------------------------ problem.toml

#: (text of problems/autodiff/problem.toml, its replacement, the message after "<file>: ")
PROBLEM_BREAKAGES = {
    "points-string": ('points = 2', 'points = "two"', """[[tests]] #1 'points': expected a number, got "two\""""),
    "points-zero": ('points = 2', 'points = 0', "[[tests]] #1 'points': must be > 0, got 0"),
    "limit-string": ("wall_seconds = 90", 'wall_seconds = "ninety"',
                     """[limits] 'wall_seconds': expected a number, got "ninety\""""),
    "limit-negative": ("memory_mib = 1536", "memory_mib = -1536", "[limits] 'memory_mib': must be > 0, got -1536"),
    "limit-not-integer": ("cpu_seconds = 120", "cpu_seconds = 120.5",
                          "[limits] 'cpu_seconds': expected an integer, got 120.5"),
    "limit-table": ("wall_seconds = 90", "wall_seconds = { value = 90 }",
                    "[limits] 'wall_seconds': expected a number, got a table"),
    "unknown-top": ("order = 1", "order = 1\ntitel = \"x\"",
                    "'titel': unknown key (known: id, limits, order, reread, swap, tests, title, visibility)"),
    "unknown-limits": ("wall_seconds = 90", "wall_secs = 90",
                       "[limits] 'wall_secs': unknown key (known: cpu_seconds, memory_mib, probe_seconds, wall_seconds)"),
    "unknown-test-key": ("max_ratio = 3.3", "max_ration = 3.3",
                         "[[tests]] #22 'max_ration': unknown key (known: id, judge, kind, name, points, probe, "
                         "visibility; options judge 'time_ratio' reads: max_growth, max_ratio, max_slowdown)"),
    "option-string": ("seed = 2.5", 'seed = "two"', """[[tests]] #12 'seed': expected a number, got "two\""""),
    "missing-test-key": ('kind = "gradient"\npoints = 2\n', "points = 2\n",
                         "[[tests]] #1 'kind': missing (required: a string)"),
    "missing-swap-key": ('module = "minitorch.autodiff"\n', "", "[swap] 'module': missing (required: a string)"),
    "missing-id": ('id = "autodiff"\n', "", "'id': missing (required: a string)"),
    "swap-value": ('[swap]\nfile = "minitorch/autodiff.py"', 'swap = "minitorch/autodiff.py"\n[ignored]\nfile = 1',
                   """'swap': expected a table, got "minitorch/autodiff.py\""""),
    "duplicate-test": ('id = "sigmoid_quiz"', 'id = "slides_example"',
                       """[[tests]] #2 'id': duplicate id "slides_example" (also [[tests]] #1)"""),
}


@pytest.mark.parametrize("breakage", sorted(PROBLEM_BREAKAGES))
def test_a_problem_toml_breaking_the_schema_is_refused_naming_the_file_and_the_key(tmp_path, breakage):
    old, new, message = PROBLEM_BREAKAGES[breakage]
    root = _root_with(tmp_path, "autodiff")
    path = root / "autodiff" / "problem.toml"
    _edit(path, old, new)
    _refused_alike(path, lambda: load_problems(root), root, message)


def test_every_breach_is_said_at_once_and_at_its_line(tmp_path):
    """Loading lists every issue (one line each, each naming the file); check-problems points at each key's line."""
    root = _root_with(tmp_path, "autodiff")
    path = root / "autodiff" / "problem.toml"
    _edit(path, 'points = 2', 'points = "two"')
    _edit(path, "wall_seconds = 90", 'wall_seconds = "ninety"')
    _edit(path, "cpu_seconds = 120", "cpu_seconds = -1")
    with pytest.raises(SpecError) as caught:
        load_problem(root / "autodiff")
    assert str(caught.value).splitlines() == [
        f"""{path}: [limits] 'wall_seconds': expected a number, got "ninety\"""",
        f"{path}: [limits] 'cpu_seconds': must be > 0, got -1",
        f"""{path}: [[tests]] #1 'points': expected a number, got "two\"""",
    ]
    lines = path.read_text(encoding="utf-8").splitlines()
    for finding in _findings(root):
        number = int(finding[len(str(path)) + 1:].split(":", 1)[0])
        key = re.search(r"'(\w+)':", finding).group(1)
        assert lines[number - 1].startswith(key + " ="), (finding, lines[number - 1])


def test_an_unknown_judge_leaves_its_options_to_check_problems(tmp_path):
    """The options of a judge that is not found cannot be checked: the problem loads, and check-problems (and the
    grading of that problem, tests/test_check_problems.py) names the judge."""
    root = _root_with(tmp_path, "autodiff")
    path = root / "autodiff" / "problem.toml"
    _edit(path, 'judge = "time_ratio"', 'judge = "time_ration"')
    assert load_problem(root / "autodiff").tests[-1].options == {"max_ratio": 3.3, "max_growth": 1.45}
    assert _findings(root) == [f"{path}:{_line(path, 'time_ration')}: [[tests]] #22 'judge': judge 'time_ration' is neither a builtin judge "
                               f"(judge.py) nor in {root / 'autodiff' / 'judges.py'} JUDGES"]


def test_a_spec_is_parsed_once_per_version_of_its_files(tmp_path, monkeypatch):
    """Specs are kept per version of problem.toml (its text), judges.py, the builtin judges' source and
    offerings.toml's [visibility]: the same files give the same ProblemSpec object; an edit of the same length within
    the same clock tick (mtime put back) is read; a judges.py that starts reading an option lets the problem load,
    and one that stops refuses it again; a changed course visibility is applied; a builtin judge that stops reading
    an option refuses the problem that sets it; a broken file is refused on every load."""
    root = _root_with(tmp_path, "autodiff")
    folder, path = root / "autodiff", root / "autodiff" / "problem.toml"
    first = load_problem(folder)
    assert load_problem(folder) is first and load_problems(root)[0] is first
    stat = path.stat()
    _edit(path, "points = 2", "points = 3")  # the same size: only the text tells the versions apart
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    assert load_problem(folder).tests[0].points == 3.0 and first.tests[0].points == 2.0
    _edit(path, "max_ratio = 3.3", "max_ratio = 3.3\nwiggle = 1")
    _refused_alike(path, lambda: load_problem(folder), root, "[[tests]] #22 'wiggle': unknown key (known: id, judge, "
                   "kind, name, points, probe, visibility; options judge 'time_ratio' reads: max_growth, max_ratio, "
                   "max_slowdown)")
    with pytest.raises(SpecError):
        load_problem(folder)  # refused again, not kept
    judges = folder / "judges.py"
    _edit(judges, 'limit = float(options.get("max_slowdown"', 'options.get("wiggle")\n'
                  '    limit = float(options.get("max_slowdown"')
    assert load_problem(folder).tests[-1].options["wiggle"] == 1
    _edit(judges, 'options.get("wiggle")\n    ', "")  # the judge reads it no more: the same problem.toml is refused
    with pytest.raises(SpecError):
        load_problem(folder)
    _edit(path, "\nwiggle = 1", "")
    assert {t.visibility for t in load_problem(folder, CourseVisibility("hidden", {})).tests} == {"hidden"}
    assert {t.visibility for t in load_problem(folder).tests} != {"hidden"}
    _edit(path, "points = 3", "points = 3\nrtol = 1e-6")  # the first test's judge is the builtin allclose
    assert load_problem(folder).tests[0].options == {"rtol": 1e-6}
    builtin = tmp_path / "judge.py"  # the builtin judges' source changed: allclose reads rtol no more
    builtin.write_text(judgescan.BUILTIN_SOURCE.read_text().replace('options.get("rtol"', 'options.get("rtolerance"'))
    monkeypatch.setattr(judgescan, "BUILTIN_SOURCE", builtin)
    with pytest.raises(SpecError, match="'rtol': unknown key"):
        load_problem(folder)


# ------------------------------------------------------------------ offerings.toml

OFFERINGS = """default = "a"

[visibility]
default = "visible"

[offerings.a]
title = "A"
problems = { autodiff = 40 }
drop = { autodiff = ["time_doubling"] }
"""

#: (text of OFFERINGS, its replacement, the message after "<file>: ")
OFFERING_BREAKAGES = {
    "points-string": ("autodiff = 40", 'autodiff = "forty"',
                      """[offerings.a] 'problems.autodiff': expected a number, got "forty\""""),
    "points-negative": ("autodiff = 40", "autodiff = -40", "[offerings.a] 'problems.autodiff': must be > 0, got -40"),
    "problems-list": ("problems = { autodiff = 40 }", 'problems = ["autodiff"]',
                      """[offerings.a] 'problems': expected "*" or a table of problem id = points, got ["autodiff"]"""),
    "unknown-top": ('default = "a"', 'default = "a"\ndefualt = "a"',
                    "'defualt': unknown key (known: default, offerings, visibility)"),
    "unknown-offering-key": ('title = "A"', 'title = "A"\npoints = 3',
                             "[offerings.a] 'points': unknown key (known: drop, drop_symbols, markers, problems, "
                             "starter, title)"),
    "missing-default": ('default = "a"\n', "", "'default': missing (required: a string)"),
    "missing-problems": ("problems = { autodiff = 40 }\n", "",
                         """[offerings.a] 'problems': missing (required: "*" or a table of problem id = points)"""),
    "title-table": ('title = "A"', 'title = { en = "A" }', "[offerings.a] 'title': expected a string, got a table"),
    "drop-string": ('drop = { autodiff = ["time_doubling"] }', 'drop = { autodiff = "time_doubling" }',
                    """[offerings.a] 'drop.autodiff': expected a list of strings, got "time_doubling\""""),
    "visibility": ('default = "visible"', 'default = "students"',
                   """[visibility] 'default': expected one of visible, hidden, after_due_date, after_published, """
                   """got "students\""""),
    "unknown-problem": ("autodiff = 40", "autodiff = 40, autodif = 1",
                        "[offerings.a] 'problems.autodif': no such problem (problems: autodiff)"),
}


@pytest.mark.parametrize("breakage", sorted(OFFERING_BREAKAGES))
def test_an_offerings_toml_breaking_the_schema_is_refused_naming_the_file_and_the_key(tmp_path, breakage):
    old, new, message = OFFERING_BREAKAGES[breakage]
    root = _root_with(tmp_path, "autodiff")
    path = root / "offerings.toml"
    assert old in OFFERINGS
    path.write_text(OFFERINGS.replace(old, new, 1), encoding="utf-8")
    _refused_alike(path, lambda: load_offerings(path), root, message)


def test_check_problems_prints_the_findings_and_fails(tmp_path):
    root = _root_with(tmp_path, "autodiff")
    problem = root / "autodiff" / "problem.toml"
    _edit(problem, 'points = 2', 'points = "two"')
    (root / "offerings.toml").write_text(OFFERINGS.replace("autodiff = 40", "autodiff = -40"), encoding="utf-8")
    done = CliRunner().invoke(main, ["check-problems", str(root), "--no-grade"])
    assert done.exit_code == 1
    assert f"""{problem}:{_line(problem, '"two"')}: [[tests]] #1 'points': expected a number, got "two\"""" \
        in done.stderr, done.stderr
    # the problems do not load: what the offerings say of them is not checked, their schema is
    assert f"{root / 'offerings.toml'}:8: [offerings.a] 'problems.autodiff': must be > 0, got -40" in done.stderr


# ------------------------------------------------------------------ what ships


@pytest.mark.parametrize("folder", sorted(p.parent.name for p in PROBLEMS.glob("*/problem.toml")))
def test_every_shipped_problem_toml_loads(folder):
    raw = toml.loads((PROBLEMS / folder / "problem.toml").read_text(encoding="utf-8"))
    assert problem_issues(raw, PROBLEMS / folder) == []
    spec = load_problem(PROBLEMS / folder)
    assert spec.tests and spec.max_score > 0
    assert {t.id for t in spec.tests} == {t["id"] for t in raw["tests"]}


def test_the_shipped_offerings_toml_loads():
    raw = toml.loads((PROBLEMS / "offerings.toml").read_text(encoding="utf-8"))
    assert offerings_issues(raw) == []
    default, offerings = load_offerings()
    assert default in offerings and set(offerings) == set(raw["offerings"])
    # the shipped problems pass the static checks too: test_check_problems (one run of them, not one per file)


# ------------------------------------------------------------------ one Limits type


def test_one_limits_type_from_problem_toml_to_the_child():
    """[limits] is declared from the Limits fields a problem sets; the child gets the problem's Limits object
    (tightened, never loosened), with the grader's own limits at their defaults."""
    from graders import baseline, probe, schema, spec
    from graders.limits import PROBLEM_LIMITS, Limits

    assert spec.Limits is probe.Limits is Limits and not hasattr(probe, "ChildLimits")
    assert set(schema.LIMITS.keys) == set(PROBLEM_LIMITS) < {f.name for f in dataclasses.fields(Limits)}
    autodiff = load_problem(PROBLEMS / "autodiff", CourseVisibility())
    assert autodiff.limits == Limits(wall_seconds=90.0, probe_seconds=30.0, cpu_seconds=120, memory_mib=1536)
    assert baseline.limits_for(autodiff) == autodiff.limits
    fast = baseline.limits_for(autodiff, {"probe_seconds": 3, "wall_seconds": 200})
    assert (fast.probe_seconds, fast.wall_seconds, fast.memory_mib) == (3.0, 90.0, 1536)
    with pytest.raises(ValueError, match="unknown limit 'tmp_mib'"):
        autodiff.limits.tightened({"tmp_mib": 1})
