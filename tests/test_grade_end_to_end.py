"""`autograde grade` on the reference (full marks) and on the blank template (zero, NotImplementedError)."""

import json
import os
import subprocess
import sys

import pytest

from classbuilder import reference_graded
from conftest import ROOT
from graders.offering import get_offering


def grade(path, out):
    proc = subprocess.run(
        [sys.executable, "-m", "graders", "grade", str(path), "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=900,
    )
    return proc, json.loads((out / "results.json").read_text())


def test_reference_gets_full_marks():
    """`autograde grade reference`, run once per test run and shared with test_browser.py, which renders its report
    in Chromium (classbuilder.reference_graded)."""
    graded = reference_graded()
    assert graded.returncode == 0, graded.stderr
    results = json.loads((graded.out / "results.json").read_text())
    failed = [(t["name"], t["output"]) for t in results["tests"] if t["status"] != "passed"]
    assert not failed
    assert results["score"] == pytest.approx(get_offering().max_score)
    assert (graded.out / "report.html").read_text().count("passed") >= len(results["tests"])


def test_blank_template_gets_zero_and_says_not_implemented(tmp_path):
    proc, results = grade(ROOT / "student_template", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert results["score"] == 0
    for test in results["tests"]:
        assert test["status"] == "failed" and test["score"] == 0
        assert "NotImplementedError" in test["output"], test
        assert test["extra_data"]["misconception"] is None


def test_reference_gets_full_marks_in_the_weak_sandbox(tmp_path):
    """Without bubblewrap (rlimits only) the timing test still finds the harness's CPU clock: the weak
    mode launches `sys.executable` itself, not its resolved path (it once lost "Linear time" there)."""
    proc = subprocess.run(
        [sys.executable, "-m", "graders", "grade", str(ROOT / "reference"), "--out", str(tmp_path),
         "--problems", "autodiff"],
        capture_output=True, text=True, cwd=ROOT, timeout=900, env={**os.environ, "AUTOGRADE_WEAK_SANDBOX": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["extra_data"]["sandbox"] == "weak"
    failed = [(t["name"], t["output"]) for t in results["tests"] if t["status"] != "passed"]
    assert not failed and results["score"] == pytest.approx(40.0)
