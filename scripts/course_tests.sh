#!/usr/bin/env bash
# Run a course starter's own test suite, UNCHANGED, against reference/.
#
#   scripts/course_tests.sh STARTER_DIR [PYTEST_ARGS...]
#
# STARTER_DIR is an extracted course starter (it has a tests/ folder), e.g.
# /tmp/course/s26 (spring 2026) or /tmp/course/f25 (fall 2025). A temporary
# directory is built with a copy of STARTER_DIR/tests beside symlinks to
# reference/minitorch and reference/project, and `python -m pytest tests` runs
# there (the course's tests import `minitorch`, `project.run_sentiment` and
# `numba`). The interpreter is $PYTHON, else /tmp/cvenv/bin/python when it
# exists, else python3; it needs numpy, pytest, hypothesis and numba (and torch
# for the course's test_back_view). Exit status: pytest's.
set -euo pipefail

if [[ $# -lt 1 || ! -d "$1/tests" ]]; then
    echo "usage: $0 STARTER_DIR [PYTEST_ARGS...]   (STARTER_DIR must contain tests/)" >&2
    exit 2
fi
starter=$(cd "$1" && pwd)
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [[ -n "${PYTHON:-}" ]]; then
    py=$PYTHON
elif [[ -x /tmp/cvenv/bin/python ]]; then
    py=/tmp/cvenv/bin/python
else
    py=python3
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/course-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$starter/tests" "$work/tests"
find "$work/tests" -name __pycache__ -prune -exec rm -rf {} +
ln -s "$root/reference/minitorch" "$work/minitorch"
ln -s "$root/reference/project" "$work/project"

cd "$work"
echo "course tests: $starter/tests against $root/reference ($py)"
PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest tests -p no:cacheprovider -q "$@"
