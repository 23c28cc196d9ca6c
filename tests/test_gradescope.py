"""The Gradescope autograder archive, run for real against a fake /autograder tree.

`autograde gradescope-zip` builds the archive; it is unpacked the way Gradescope
does (into <root>/source, run_autograder copied to <root>/run_autograder), its
setup.sh runs (into a throwaway venv that sees this interpreter's site-packages, so
nothing is downloaded), then run_autograder grades a submission and the
results.json it writes is validated against Gradescope's schema and the
contract's extras (tests/files/gradescope_results.schema.json).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from graders.catalogue import explain
from graders.gradescope import submission_source
from graders.offering import get_offering

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "files" / "gradescope_results.schema.json").read_text())
STUDENT_FILES = ("minitorch/autodiff.py", "minitorch/tensor_functions.py", "project/run_sentiment.py")


def validate(doc):
    """Schema, then what a schema cannot say: tags name the problem and kind, scores add up."""
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    problems = doc["extra_data"]["problems"]
    for test in doc["tests"]:
        extra = test["extra_data"]
        assert extra["problem"] in test["tags"] and extra["kind"] in test["tags"], test["name"]
        assert extra["problem"] in problems, test["name"]
        assert 0 <= test["score"] <= test["max_score"]
        assert (test["status"] == "passed") == (test["score"] == test["max_score"] > 0) or test["max_score"] == 0
        if extra["misconception"] and test["status"] == "failed":
            assert extra["misconception"] in doc["extra_data"]["misconceptions"]
    for pid, p in problems.items():
        tests = [t for t in doc["tests"] if t["extra_data"]["problem"] == pid]
        assert p["max_score"] == pytest.approx(sum(t["max_score"] for t in tests))
        assert p["score"] == pytest.approx(sum(t["score"] for t in tests))
    assert doc["score"] == pytest.approx(sum(p["score"] for p in problems.values()))
    assert len({t["number"] for t in doc["tests"]}) == len(doc["tests"])


def environment(tree: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADE_ROOT", "PYTHONPATH")}
    env.update(
        AUTOGRADER_ROOT=str(tree),
        AUTOGRADER_PYTHON=sys.executable,
        # a venv seeing this interpreter's packages (also when it is itself a venv, whose base interpreter may
        # have no setuptools or wheel: its site-packages are added), without the old bundled pip/setuptools
        AUTOGRADER_VENV_OPTS="--without-pip",
        AUTOGRADER_SITE_DIRS=":".join(site.getsitepackages()),
        AUTOGRADER_PIP_OPTS="--no-index --no-build-isolation --no-deps",
        AUTOGRADER_NO_APT="1",
        AUTOGRADE_CACHE=str(cache),
    )
    return env


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    done = subprocess.run([sys.executable, "-m", "graders", "gradescope-zip", "--out", str(dest)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return dest


@pytest.fixture(scope="module")
def tree(archive, tmp_path_factory, grader_cache) -> Path:
    """A fake /autograder after Gradescope unpacked the archive and ran setup.sh."""
    root = tmp_path_factory.mktemp("fake") / "autograder"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(archive) as z:
        z.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):  # zipfile drops permissions; Gradescope keeps them
        (root / "source" / script).chmod(0o755)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    done = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source",
                          env=environment(root, grader_cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "reference 100 / 100" in done.stdout
    return root


def run_autograder(tree: Path, source: Path, cache: Path) -> dict:
    for folder in ("submission", "results"):
        shutil.rmtree(tree / folder, ignore_errors=True)
        (tree / folder).mkdir()
    for rel in STUDENT_FILES:
        (tree / "submission" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, tree / "submission" / rel)
    done = subprocess.run([str(tree / "run_autograder")], cwd="/", env=environment(tree, cache),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(p.name for p in (tree / "results").iterdir()) == ["results.json"]
    return json.loads((tree / "results" / "results.json").read_text())


def test_archive_layout(archive):
    with zipfile.ZipFile(archive) as z:
        infos = {i.filename: i for i in z.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert script in infos, f"{script} must sit at the archive root"
        assert (infos[script].external_attr >> 16) & 0o111, f"{script} must be executable"
    names = set(infos)
    for needed in ("pyproject.toml", "graders/gradescope.py", "graders/child/harness.py", "reports/templates/report.html",
                   "problems/autodiff/problem.toml", "problems/training/hidden/heldout.tsv",
                   "reference/minitorch/autodiff.py", "reference/project/run_sentiment.py"):
        assert needed in names, needed
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or ".egg-info" in n]
    assert not [n for n in names if n.startswith(("tests/", "student_template/", "examples/"))]


def test_archive_is_reproducible(archive, tmp_path):
    again = tmp_path / "again.zip"
    subprocess.run([sys.executable, "-m", "graders", "gradescope-zip", "--out", str(again)],
                   cwd=ROOT, check=True, capture_output=True, timeout=120)
    assert again.read_bytes() == archive.read_bytes()


@pytest.mark.slow
def test_reference_submission_gets_full_marks(tree, grader_cache):
    doc = run_autograder(tree, ROOT / "reference", grader_cache)
    validate(doc)
    total = sum(p["max_score"] for p in doc["extra_data"]["problems"].values())
    failed = [f'{t["name"]}: {t["output"]}' for t in doc["tests"] if t["status"] != "passed"]
    assert not failed, "the reference lost points:\n" + "\n".join(failed)
    assert total > 0 and doc["score"] == total
    assert set(doc["extra_data"]["problems"]) == set(get_offering().points)
    assert doc["extra_data"]["misconceptions"] == [] and doc["extra_data"]["errors"] == []
    kinds = {t["extra_data"]["kind"] for t in doc["tests"]}
    assert {"gradient", "complexity", "recursion", "accuracy", "unit"} <= kinds


@pytest.mark.slow
def test_blank_template_gets_zero_with_reasons(tree, grader_cache):
    doc = run_autograder(tree, ROOT / "student_template", grader_cache)
    validate(doc)
    assert doc["score"] == 0
    assert doc["tests"] and all(t["status"] == "failed" for t in doc["tests"])
    assert all("NotImplementedError" in t["output"] for t in doc["tests"])


@pytest.mark.slow
@pytest.mark.parametrize("student, misconception", [("carol_bfs", "not-topological"),
                                                     ("dave_recursive", "recursion-limit")])
def test_a_buggy_submission_reads_its_misconceptions_and_waits_for_the_hidden_tests(
        tree, grader_cache, student, misconception):
    """The always-visible output names each misconception found in words and quotes no test; the tests of
    hidden properties (complexity, recursion, accuracy) are shown after the due date, the others at once;
    a failed test's own output explains its misconception."""
    doc = run_autograder(tree, ROOT / "examples" / "submissions" / student, grader_cache)
    validate(doc)
    assert doc["output_format"] == "md" and doc["visibility"] == "visible"
    assert misconception in doc["extra_data"]["misconceptions"]
    for mid in doc["extra_data"]["misconceptions"]:
        assert explain(mid).title in doc["output"] and explain(mid).explanation in doc["output"], mid
    for test in doc["tests"]:
        hidden = test["extra_data"]["kind"] in ("complexity", "recursion", "accuracy")
        assert test["visibility"] == ("after_due_date" if hidden else "visible"), test["name"]
        mid = test["extra_data"]["misconception"]
        if test["status"] == "failed" and mid:
            assert explain(mid).title in test["output"] and explain(mid).explanation in test["output"], test["name"]
    assert doc["extra_data"]["errors"] == []  # no problem-level error (the top level would rightly show it)
    failed_later = [t for t in doc["tests"] if t["visibility"] != "visible" and t["status"] == "failed"]
    for test in failed_later:
        message = re.search(r"^(`{3,})\n(.*?)\n\1$", test["output"], re.S | re.M).group(2)  # its code block
        assert message and message not in doc["output"], test["name"]
    if student == "dave_recursive":
        assert len(failed_later) >= 3, "dave fails the deep-chain tests (not vacuous)"


def test_schema_is_not_vacuous():
    good = {
        "score": 1.0, "execution_time": 0.5, "output": "", "visibility": "visible", "stdout_visibility": "hidden",
        "extra_data": {"problems": {"ops": {"score": 1.0, "max_score": 1.0}}, "misconceptions": [], "errors": []},
        "tests": [{"score": 1.0, "max_score": 1.0, "status": "passed", "name": "t", "number": "1.1", "output": "",
                   "tags": ["ops", "unit"], "visibility": "visible",
                   "extra_data": {"problem": "ops", "kind": "unit", "misconception": None}}],
    }
    validate(good)
    broken = [
        lambda d: d.pop("stdout_visibility"),
        lambda d: d["tests"][0].update(status="ok"),
        lambda d: d["tests"][0]["extra_data"].pop("misconception"),
        lambda d: d["extra_data"].pop("errors"),
        lambda d: d.update(visibility="public"),
        lambda d: d.update(surprise=1),
    ]
    for breaker in broken:
        doc = json.loads(json.dumps(good))
        breaker(doc)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(SCHEMA).validate(doc)


def test_an_uploaded_zip_is_graded_as_the_submission(tmp_path):
    folder = tmp_path / "submission"
    folder.mkdir()
    assert submission_source(folder) == folder
    (folder / "hw2.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert submission_source(folder) == folder / "hw2.zip"
    (folder / "minitorch").mkdir()
    (folder / "minitorch" / "autodiff.py").write_text("x = 1\n")
    assert submission_source(folder) == folder  # loose files win over a stray archive


def test_a_grader_failure_still_writes_valid_results(tmp_path, monkeypatch, capsys):
    import graders.grade
    from graders import gradescope

    def broken(*args, **kwargs):
        raise RuntimeError("/autograder/source/problems/secret.py exploded")

    monkeypatch.setattr(graders.grade, "grade_submission", broken)
    (tmp_path / "submission").mkdir()
    assert gradescope.run(tmp_path) == 1
    doc = json.loads((tmp_path / "results" / "results.json").read_text())
    validate(doc)
    assert doc["score"] == 0 and "autograder itself failed" in doc["output"]
    assert "secret" not in json.dumps(doc)  # details only on the hidden stdout
    assert "secret.py exploded" in capsys.readouterr().out
