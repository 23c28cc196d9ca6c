"""Python 3.10 for real (requires-python >= 3.10; Gradescope's Ubuntu 22.04 image has 3.10).

The grader is installed from a copy of the repository (the Gradescope archive's payload) into a fresh
venv of a 3.10 interpreter, with nothing from this interpreter's site-packages (pip may reach the package
registry), and grades the reference to full marks, every probe running in a 3.10 child. Skipped, saying
why, when no 3.10 interpreter is found: $AUTOGRADE_PY310, else `python3.10` on PATH, else pyenv's.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Optional

import pytest

from graders.gradescope import build_zip
from graders.offering import get_offering

ROOT = Path(__file__).resolve().parent.parent
PYENV_GLOB = "/root/.pyenv/versions/3.10*/bin/python3.10"


def find_python310() -> Optional[str]:
    """A Python 3.10 interpreter: $AUTOGRADE_PY310, else `python3.10` on PATH, else pyenv's; None if none runs."""
    candidates = [os.environ.get("AUTOGRADE_PY310"), shutil.which("python3.10"), *sorted(glob.glob(PYENV_GLOB))]
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([candidate, "-c", "import sys, venv; print(sys.version_info[:2] == (3, 10))"],
                                  capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if done.stdout.strip() == "True":
            return candidate
    return None


def run(argv, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_python310_installs_the_grader_and_grades_the_reference_to_full_marks(tmp_path):
    python310 = find_python310()
    if python310 is None:
        pytest.skip(f"no Python 3.10 interpreter ($AUTOGRADE_PY310, python3.10 on PATH, {PYENV_GLOB})")
    source, archive = tmp_path / "source", tmp_path / "autograder.zip"
    build_zip(archive, ROOT)  # the copy Gradescope gets: pyproject.toml, graders, reports, problems, reference
    with zipfile.ZipFile(archive) as payload:
        payload.extractall(source)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "AUTOGRADE_", "VIRTUAL_ENV"))}
    env.update(PYTHONNOUSERSITE="1", AUTOGRADE_ROOT=str(source), AUTOGRADE_CACHE=str(tmp_path / "cache"))
    venv = tmp_path / "venv"
    run([python310, "-m", "venv", venv], env=env, timeout=120)
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "--quiet", source], env=env, cwd=tmp_path, timeout=300)
    # the venv is 3.10, without tomllib: the grader reads TOML through the tomli backport
    probe = run([python, "-c", "import sys, importlib.util as u; print(sys.version_info[:2], u.find_spec('tomllib'), "
                 "u.find_spec('tomli') is not None)"], env=env, cwd=tmp_path, timeout=60)
    assert probe.stdout.split() == ["(3,", "10)", "None", "True"], probe.stdout
    # one cache shared by 3.10 and this interpreter (3.11), graded in turn: 3.10 (every problem), 3.11, 3.10 again
    # (network: its stack holds the other problems' solutions, autodiff's and the tensor Functions', as bytecode,
    # which is per interpreter, as the reference runs are; graders.cache keys them by runtime): full marks every
    # time. The turns after the first grade network rather than autodiff: the same cache property, without building
    # autodiff's reference and eight instructor mutants' runs (their timing probes) a second time for 3.11.
    graders = {"3.10": [venv / "bin" / "autograde"], "this": [sys.executable, "-m", "graders"]}
    this_env = {**env, "PYTHONPATH": str(source)}
    again = ["--problems", "network"]
    for turn, (who, only) in enumerate([("3.10", []), ("this", again), ("3.10", again)]):
        out = tmp_path / f"out{turn}"
        run([*graders[who], "grade", source / "reference", "--out", out, *only], env=this_env if who == "this" else env,
            cwd=tmp_path, timeout=400)
        doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
        failed = [f'{t["name"]}: {t["output"]}' for t in doc["tests"] if t["status"] != "passed"]
        assert not failed, f"the reference lost points on Python {who} (turn {turn}):\n" + "\n".join(failed)
        total = sum(p["max_score"] for p in doc["extra_data"]["problems"].values())
        assert doc["score"] == total > 0 and doc["extra_data"]["errors"] == [] and doc["extra_data"]["faults"] == []
        if not only:
            assert total == get_offering().max_score
    (version,) = (tmp_path / "cache").iterdir()  # one grader version, one folder per interpreter under it
    assert sorted(p.name.rsplit("-", 1)[0] for p in version.iterdir()) == ["cpython-310", f"cpython-{sys.version_info[0]}{sys.version_info[1]}"]
    for runtime in version.iterdir():  # each interpreter ran network on its own bytecode of autodiff's solution
        assert (runtime / "stacks" / "network" / "minitorch" / "autodiff.pyc").is_file(), sorted(runtime.rglob("*.pyc"))
