"""Gradescope: build the autograder archive, and run it inside Gradescope's image.

`autograde gradescope-zip --out FILE.zip` writes an archive whose root holds
`setup.sh`, `run_autograder` and the grader itself (graders/, reports/,
problems/ with the hidden material, reference/, pyproject.toml). Gradescope
unpacks it into `/autograder/source`, runs `setup.sh` once while building the
image, copies `run_autograder` to `/autograder/run_autograder` and runs it for
every submission.

* `setup.sh` makes a virtual environment, installs the grader into it (no
  torch: grading never imports it) and pre-computes the reference and mutant
  runs by grading the reference, so each student run only probes the student.
* `run_autograder` calls `python -m graders.gradescope`, which grades
  `/autograder/submission` from a private temporary directory and writes
  `/autograder/results/results.json` itself, after every child process of the
  grading has ended. Student code never runs in, or is told about, the results
  folder.

Everything written or printed (results.json, the hidden stdout) is printable text (graders.safetext).

`AUTOGRADER_ROOT` (default `/autograder`) moves the whole tree, so tests run
the real scripts against a temporary directory standing in for it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from . import paths

#: What the archive carries from the repository (directories are walked, caches skipped).
PAYLOAD = ("pyproject.toml", "README.md", "graders", "reports", "problems", "reference")
#: A fixed timestamp: the same repository gives the same archive bytes.
ZIP_DATE = (2026, 1, 1, 0, 0, 0)

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, while building the autograder image.
# Environment (for tests and other hosts):
#   AUTOGRADER_ROOT       the /autograder tree (default /autograder)
#   AUTOGRADER_PYTHON     the interpreter to build the venv from (default python3: the image's own; needs >= 3.10,
#                         which Gradescope's Ubuntu 22.04 base image has)
#   AUTOGRADER_VENV_OPTS  extra `python -m venv` options (e.g. --system-site-packages)
#   AUTOGRADER_SITE_DIRS  site-packages folders (':'-separated) the venv also sees, e.g. another venv's whose
#                         packages are already installed (the project's tests: nothing is downloaded)
#   AUTOGRADER_PIP_OPTS   extra `pip install` options (e.g. --no-index --no-build-isolation)
#   AUTOGRADER_NO_APT=1   never call apt-get
#   AUTOGRADE_CACHE       where the reference/mutant runs are cached (default $AUTOGRADER_ROOT/cache)
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/venv"
PYTHON="${AUTOGRADER_PYTHON:-python3}"
export AUTOGRADE_CACHE="${AUTOGRADE_CACHE:-$ROOT/cache}"

python_ok() {
  command -v "$1" >/dev/null 2>&1 &&
    "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1
}
apt_install() {
  if [ "${AUTOGRADER_NO_APT:-0}" != 1 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
  else
    echo "setup.sh: missing $* and apt-get is unavailable (or AUTOGRADER_NO_APT=1)" >&2
    return 1
  fi
}

# The image's own Python (>= 3.10: Ubuntu 22.04's python3 is 3.10) with its venv module (Ubuntu ships
# ensurepip in python3-venv), and prlimit (util-linux). No other Python is installed.
if ! python_ok "$PYTHON" && [ "$PYTHON" = python3 ]; then
  apt_install python3 python3-venv
fi
if ! python_ok "$PYTHON"; then
  echo "setup.sh: $PYTHON is not a Python >= 3.10 with venv and ensurepip; set AUTOGRADER_PYTHON" >&2
  exit 1
fi
command -v prlimit >/dev/null 2>&1 || apt_install util-linux
if grep -rqs --exclude=gradescope.py "bwrap" "$SOURCE/graders" && ! command -v bwrap >/dev/null 2>&1; then
  apt_install bubblewrap  # the grader sandboxes children with bubblewrap
fi

chmod 755 "$SOURCE/run_autograder" "$ROOT/run_autograder" 2>/dev/null || true
rm -rf "$VENV"
# shellcheck disable=SC2086
"$PYTHON" -m venv ${AUTOGRADER_VENV_OPTS:-} "$VENV"
if [ -n "${AUTOGRADER_SITE_DIRS:-}" ]; then
  "$VENV/bin/python" - "$AUTOGRADER_SITE_DIRS" <<'PY'
import sys, sysconfig
with open(sysconfig.get_paths()["purelib"] + "/autograder-site-dirs.pth", "w") as pth:
    pth.write("".join(f"import site; site.addsitedir({d!r})\n" for d in sys.argv[1].split(":") if d))
PY
fi
# shellcheck disable=SC2086
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check ${AUTOGRADER_PIP_OPTS:-} "$SOURCE"

# Pre-compute the reference and mutant runs: grading the reference computes and
# caches them, and must score full marks (else the image is broken: fail the build).
export AUTOGRADE_OFFERING="@OFFERING@"   # problems/offerings.toml: what this assignment grades
WARM="$(mktemp -d)"
(cd "$WARM" && AUTOGRADE_ROOT="$SOURCE" PYTHONPATH="$SOURCE" \
  "$VENV/bin/python" -m graders grade "$SOURCE/reference" --out "$WARM/out")
"$VENV/bin/python" - "$WARM/out/results.json" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
total = sum(p["max_score"] for p in doc["extra_data"]["problems"].values())
if doc["score"] != total:
    sys.exit(f"setup.sh: the reference scores {doc['score']} / {total}; the autograder is broken")
print(f"setup.sh: reference {doc['score']:g} / {total:g}; cache warm in {os.environ['AUTOGRADE_CACHE']}")
PY
rm -rf "$WARM"
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission: grades $AUTOGRADER_ROOT/submission
# into $AUTOGRADER_ROOT/results/results.json (see graders/gradescope.py).
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
export AUTOGRADE_ROOT="$SOURCE"       # problems/ and reference/ come from the unpacked source
export PYTHONPATH="$SOURCE"
export AUTOGRADE_CACHE="${AUTOGRADE_CACHE:-$ROOT/cache}"
export AUTOGRADE_OFFERING="@OFFERING@"   # problems/offerings.toml: what this assignment grades
WORK="$(mktemp -d)"                   # never the submission or results folder
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
"$ROOT/venv/bin/python" -m graders.gradescope --root "$ROOT"
"""


def _payload_files(root: Path) -> List[Path]:
    """Relative paths of everything the archive carries from `root`, sorted."""
    files: List[Path] = []
    for name in PAYLOAD:
        path = root / name
        if path.is_file():
            files.append(Path(name))
        elif path.is_dir():
            files.extend(Path(name) / rel for rel in paths.files_under(path))
    return files


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix: unzip restores the permissions below
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    archive.writestr(info, data)


def build_zip(dest: Path, root: Optional[Path] = None, offering: Optional[str] = None) -> List[str]:
    """Write the autograder archive of `offering` (default: the default one) to `dest`; return its names."""
    from .offering import get_offering

    offering_id = get_offering(offering).id
    root = Path(root) if root is not None else paths.ROOT
    missing = [name for name in ("pyproject.toml", "graders", "problems", "reference") if not (root / name).exists()]
    if missing:
        raise FileNotFoundError(f"{root} is not the grader's repository (missing {', '.join(missing)})")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    names: List[str] = []
    with zipfile.ZipFile(tmp, "w") as archive:
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            _add(archive, name, text.replace("@OFFERING@", offering_id).encode(), 0o755)
            names.append(name)
        for rel in _payload_files(root):
            _add(archive, rel.as_posix(), (root / rel).read_bytes(), 0o644)
            names.append(rel.as_posix())
    os.replace(tmp, dest)
    return names


# ------------------------------------------------------------------ inside Gradescope


def submission_source(folder: Path) -> Path:
    """What to grade: the folder, or the single .zip a student uploaded into it."""
    entries = [p for p in folder.iterdir() if not p.name.startswith(".")] if folder.is_dir() else []
    zips = [p for p in entries if p.suffix.lower() == ".zip" and p.is_file() and not p.is_symlink()]
    if len(zips) == 1 and not _has_python(folder):
        return zips[0]
    return folder


def _has_python(folder: Path) -> bool:
    """Any `*.py` file under `folder`: walked without recursion (a deep folder chain cannot crash it),
    symbolic links not followed, unreadable folders skipped."""
    pending = [folder] if folder.is_dir() else []
    while pending:
        try:
            with os.scandir(pending.pop()) as scan:
                for entry in scan:
                    if entry.name.endswith(".py") and not entry.is_dir(follow_symlinks=False):
                        return True
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
        except OSError:
            continue
    return False


def failure_results(started: float) -> Dict[str, Any]:
    """A results.json for a grader failure: the student is told; the details go to the (hidden) stdout."""
    text = ("The autograder itself failed on this submission (not your code's fault). The score of 0 is "
            "provisional: course staff can see the details and will regrade.")
    return {
        "score": 0.0,
        "execution_time": round(time.monotonic() - started, 3),
        "output": text,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"problems": {}, "misconceptions": [], "errors": [text]},
        "tests": [],
    }


def run(root: Path) -> int:
    """Grade root/submission into root/results/results.json; 0 if grading completed."""
    from .record import summary_text, write_atomic
    from .safetext import printable

    started = time.monotonic()
    code = 0
    try:
        from .grade import GradeOptions, grade_submission
        from .record import results_json

        result = grade_submission(submission_source(root / "submission"), GradeOptions(), name="submission")
        doc = results_json(result)
        print(summary_text(result))
        for fault in result.faults:
            print(f"grader fault: {printable(fault)}", file=sys.stderr)
    except Exception as exc:  # a grader bug: say so in results.json rather than leaving none
        print(f"grader failure: {printable(f'{type(exc).__name__}: {exc}')}")
        print(printable(traceback.format_exc()))
        doc = failure_results(started)
        code = 1
    # Written only now, by this process, once grading has returned (its child processes were killed).
    write_atomic(root / "results" / "results.json", json.dumps(doc, indent=2))
    return code


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graders.gradescope", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")),
                        help="the Gradescope tree holding submission/ and results/ "
                             "(default $AUTOGRADER_ROOT or /autograder)")
    args = parser.parse_args(argv)
    return run(args.root)


if __name__ == "__main__":
    sys.exit(main())
