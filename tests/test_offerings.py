"""Offerings (problems/offerings.toml): each course offering's problems and points, selected in one place."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from graders.cli import main
from graders.make_template import template_files
from graders.offering import get_offering, load_offerings, offering_problems
from graders.spec import SpecError, load_problems


def test_default_is_spring_2026_hw2_with_the_handouts_points():
    """The spring 2026 README: problem 1 autodiff 40, problem 2 network 30, problem 3 training 30."""
    specs = offering_problems()
    assert get_offering().id == "s26"
    assert [(s.id, s.max_score) for s in specs] == [("autodiff", 40.0), ("network", 30.0), ("training", 30.0)]


@pytest.mark.parametrize("oid", sorted(load_offerings()[1]))
def test_every_offering_scales_its_problems_to_its_points(oid):
    offering = get_offering(oid)
    specs = offering_problems(offering)
    assert [s.id for s in specs] == list(offering.points)
    for spec in specs:
        assert spec.max_score == pytest.approx(offering.points[spec.id], abs=1e-5)
        dropped = set(offering.drop.get(spec.id, ()))
        assert dropped.isdisjoint(t.id for t in spec.tests)
        natural = {t.id: t.points for t in load_problems(only=[spec.id])[0].tests}
        ratios = {round(t.points / natural[t.id], 9) for t in spec.tests}
        assert len(ratios) == 1, f"{oid}/{spec.id}: tests scaled unevenly {ratios}"


def test_inline_loss_offerings_do_not_grade_a_loss_function():
    """Spring 2024/2025 compute the loss inside `train`: no test asks for a loss function."""
    for oid in ("s24", "s25"):
        training = {s.id: s for s in offering_problems(get_offering(oid))}["training"]
        assert "bce_values" not in {t.id for t in training.tests}
        assert training.max_score == pytest.approx(30.0)


def test_problems_outside_the_offering_are_a_usage_error():
    with pytest.raises(SpecError, match=r"not graded in offering 's26'.*--offering"):
        offering_problems(get_offering("s26"), only=["ops"])
    assert [s.id for s in offering_problems(get_offering("minitorch"), only=["ops"])] == ["ops"]
    with pytest.raises(SpecError, match="unknown offering 'f26'"):
        get_offering("f26")


def test_environment_selects_the_offering(monkeypatch):
    monkeypatch.setenv("AUTOGRADE_OFFERING", "minitorch")
    assert get_offering().id == "minitorch"
    assert get_offering("f25").id == "f25"  # an explicit option wins


BROKEN = [
    ('default = "x"\n[offerings.a]\nproblems = { autodiff = 1 }\n', "'default': offering \"x\" is not defined"),
    ('default = "a"\n[offerings.a]\nproblems = { autodif = 1 }\n', r"\[offerings.a\] 'problems.autodif': no such problem"),
    ('default = "a"\n[offerings.a]\nproblems = { autodiff = 0 }\n', r"\[offerings.a\] 'problems.autodiff': must be > 0, got 0"),
    ('default = "a"\n[offerings.a]\nproblems = { autodiff = 1 }\npoints = 3\n', r"\[offerings.a\] 'points': unknown key"),
    ('default = "a"\n[offerings.a]\nproblems = { autodiff = 1 }\ndrop = { autodiff = ["nope"] }\n', r"\[offerings.a\] 'drop.autodiff': unknown test id\(s\) nope"),
    ('default = "a"\n[offerings.a]\nproblems = { autodiff = 1 }\nmarkers = { ops = "X" }\n', r"\[offerings.a\] 'markers.ops': not one of this offering's problems"),
    ('default = "a"\n[offerings.a\n', "offerings.toml"),
]


@pytest.mark.parametrize("text,message", BROKEN)
def test_a_malformed_offerings_file_names_the_file_and_the_key(tmp_path, text, message):
    problems = tmp_path / "problems"
    problems.mkdir()
    for spec in load_problems():
        (problems / spec.id).symlink_to(spec.folder)
    (problems / "offerings.toml").write_text(text)
    with pytest.raises(SpecError, match=message) as info:
        load_offerings(problems / "offerings.toml")
    assert "offerings.toml" in str(info.value)


def test_template_of_an_offering_stubs_its_problems_inside_the_starters_markers():
    files = {k: v.decode() for k, v in template_files(get_offering("s26")).items() if k.endswith(".py")}
    autodiff = files["minitorch/autodiff.py"]
    assert "# BEGIN ASSIGN2_1" in autodiff and "# END ASSIGN2_1" in autodiff
    assert 'raise NotImplementedError("autodiff: implement topological_sort")' in autodiff
    assert "# BEGIN ASSIGN2_2" in files["project/run_sentiment.py"]
    assert "# BEGIN ASSIGN2_3" in files["project/run_sentiment.py"]
    # tensor_functions.py is given complete in this offering: no stub, no marker
    functions = files["minitorch/tensor_functions.py"]
    assert "NotImplementedError" not in functions and "SOLUTION" not in functions
    assert not any(name.startswith("tests/test_ops") for name in files)


def test_template_of_the_full_offering_stubs_the_tensor_functions_too():
    files = {k: v.decode() for k, v in template_files(get_offering("minitorch")).items() if k.endswith(".py")}
    assert 'raise NotImplementedError("ops: implement Neg.forward")' in files["minitorch/tensor_functions.py"]
    assert "ASSIGN" not in files["minitorch/tensor_functions.py"]  # no course markers for this offering
    assert "tests/test_ops.py" in files
    assert "'ops'" in files["conftest.py"]


def test_grade_records_the_offering_and_its_points(tmp_path):
    """`grade --offering f25` grades the f25 problems with their points and says which offering."""
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["grade", str(ROOT / "student_template"), "--out", str(out),
                                     "--offering", "f25", "--problems", "network"])
    assert done.exit_code == 0, done.output
    doc = json.loads((out / "results.json").read_text())
    assert doc["extra_data"]["offering"] == "f25"
    assert doc["extra_data"]["problems"] == {"network": {"score": 0.0, "max_score": 30.0}}
    bad = CliRunner().invoke(main, ["grade", str(ROOT / "student_template"), "--out", str(out), "--problems", "ops"])
    assert bad.exit_code == 2 and "not graded in offering 's26'" in bad.output


def test_gradescope_zip_carries_the_offering(tmp_path):
    import zipfile

    from graders.gradescope import build_zip

    build_zip(tmp_path / "a.zip", offering="s25")
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        for name in ("setup.sh", "run_autograder"):
            assert 'AUTOGRADE_OFFERING="s25"' in archive.read(name).decode()
    with pytest.raises(SpecError):
        build_zip(tmp_path / "b.zip", offering="nope")
    assert not Path(tmp_path / "b.zip").exists()


def test_the_readme_tables_are_generated_from_the_problem_and_offering_files(tmp_path, monkeypatch):
    """make-template writes the README's problems and offerings tables; --check names a stale README."""
    from graders import make_template as mt
    from graders import paths

    readme = (paths.ROOT / "README.md").read_text(encoding="utf-8")
    assert mt.readme_with_table(readme) == readme  # up to date
    for spec in load_problems():
        assert f"| `{spec.id}` | {spec.title} |" in readme
    for oid in load_offerings()[1]:
        assert f"| `{oid}`" in readme
    stale = readme.replace(f"| `{load_problems()[0].id}` |", "| `renamed` |", 1)
    assert mt.readme_with_table(stale) == readme
    root = tmp_path / "root"
    root.mkdir()
    (root / "README.md").write_text(stale, encoding="utf-8")
    monkeypatch.setattr(paths, "ROOT", root)
    assert "changed: README.md (the problems and offerings tables)" in mt.make_template(check=True)
