"""The course-staff GitHub Actions template (examples/ci/) and its job-summary script."""

from __future__ import annotations

import csv
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from graders.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "examples" / "ci" / "grade-class.yml"
SUMMARY = ROOT / "examples" / "ci" / "step_summary.py"
#: Actions the template may use (first-party, pinned to a major version).
KNOWN_ACTIONS = {"actions/checkout@v4", "actions/setup-python@v5", "actions/cache@v4", "actions/upload-artifact@v4"}


def load():
    doc = yaml.safe_load(WORKFLOW.read_text())
    # YAML 1.1 reads the key `on` as True
    doc["on"] = doc.pop(True, doc.get("on"))
    return doc


def steps():
    return load()["jobs"]["grade"]["steps"]


def run_lines():
    for step in steps():
        for line in str(step.get("run", "")).splitlines():
            if line.strip() and not line.strip().startswith("#"):
                yield step, line.strip()


def test_workflow_parses_with_triggers_and_permissions():
    doc = load()
    assert doc["on"]["workflow_dispatch"] is not None
    assert "submissions/**" in doc["on"]["push"]["paths"]
    assert doc["permissions"] == {"contents": "read"}
    job = doc["jobs"]["grade"]
    assert job["runs-on"].startswith("ubuntu") and job["timeout-minutes"] > 0
    for step in job["steps"]:
        assert ("uses" in step) != ("run" in step), step
        if "uses" in step:
            assert step["uses"] in KNOWN_ACTIONS, step["uses"]


def test_every_autograde_call_is_an_existing_command_with_existing_options():
    calls = [shlex.split(line) for _, line in run_lines() if line.startswith("autograde ")]
    assert calls, "the workflow must call autograde"
    verbs = {call[1] for call in calls}
    assert "batch" in verbs
    for call in calls:
        command = cli.commands.get(call[1])
        assert command is not None, f"`autograde {call[1]}` does not exist"
        known = {opt for p in command.params for opt in getattr(p, "opts", [])}
        for word in call[2:]:
            if word.startswith("--"):
                assert word in known, f"`autograde {call[1]}` has no option {word}"
    batch = next(c for c in calls if c[1] == "batch")
    assert batch[2] == "submissions" and batch[batch.index("--out") + 1] == "grading"


def test_no_step_hides_a_failure_and_the_sandbox_is_checked_before_grading():
    """GitHub runs steps as a non-root user: a failed bubblewrap install must stop the job, not leave the
    grader on rlimits only; `autograde sandbox --require unprivileged` says so before `batch` runs."""
    lines = [line for _, line in run_lines()]
    assert not [line for line in lines if "|| true" in line or line.endswith("|| :")], lines
    assert not [line for line in lines if "--allow-weak-sandbox" in line]
    check = lines.index("autograde sandbox --require unprivileged")
    assert check < next(i for i, line in enumerate(lines) if line.startswith("autograde batch"))
    assert any("apt-get install" in line and "bubblewrap" in line for line in lines[:check])


def test_regrade_variable_expands_to_an_existing_option():
    text = WORKFLOW.read_text()
    for value in re.findall(r"REGRADE=(--[a-z-]+)", text):
        assert value in {o for p in cli.commands["batch"].params for o in getattr(p, "opts", [])}


def test_publishing_steps_run_even_after_a_failed_batch():
    upload = next(s for s in steps() if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"] == "always()" and upload["with"]["path"].rstrip("/") == "grading"
    summary = next(s for s in steps() if "GITHUB_STEP_SUMMARY" in str(s.get("run", "")))
    assert summary["if"] == "always()"
    assert "grader/examples/ci/step_summary.py grading" in summary["run"]


def test_files_the_workflow_runs_exist_in_the_grader_checkout():
    for _, line in run_lines():
        for word in shlex.split(line.replace(">>", " ")):
            if word.startswith("grader/"):
                assert (ROOT / word.removeprefix("grader/")).exists(), word
            if word.startswith("./grader"):
                assert (ROOT / "pyproject.toml").is_file()


def write_batch(folder: Path) -> None:
    """A batch folder as `autograde batch` writes it (grades.csv + per-student results.json)."""
    rows = [("ann", 100, 40, 60, []), ("bo|b", 35, 10, 25, ["not-topological"]), ("cy", 0, 0, 0, [])]
    with open(folder / "grades.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "total", "max_total", "autodiff", "ops", "status"])
        for name, total, a, o, _ in rows:
            writer.writerow([name, total, 100, a, o, "graded"])
    for name, total, a, o, found in rows:
        (folder / name).mkdir()
        doc = {"score": total, "extra_data": {"problems": {"autodiff": {"score": a, "max_score": 40},
                                                           "ops": {"score": o, "max_score": 60}},
                                              "misconceptions": found, "errors": ["x"] if name == "cy" else []}}
        (folder / name / "results.json").write_text(json.dumps(doc))


def summarise(folder: Path) -> str:
    done = subprocess.run([sys.executable, str(SUMMARY), str(folder)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_step_summary_markdown(tmp_path):
    write_batch(tmp_path)
    text = summarise(tmp_path)
    assert text.startswith("## Class grades")
    assert "**3** submissions · mean **45.0 / 100**" in text
    assert "| autodiff | 16.7 | 40 | 1 / 3 |" in text
    assert "| `not-topological` | 1 |" in text
    assert "| bo\\|b | 35 | 10 | 25 | `not-topological` |" in text  # pipes escaped
    assert "| cy | 0 | 0 | 0 | 1 error(s) |" in text


def test_step_summary_never_fails(tmp_path):
    assert "did not finish" in summarise(tmp_path / "missing")
    (tmp_path / "grades.csv").write_text("student,total\n")
    assert "no submission" in summarise(tmp_path)
    (tmp_path / "grades.csv").write_bytes(b"\xff\xfe garbage")
    assert summarise(tmp_path).startswith("## Class grades")
