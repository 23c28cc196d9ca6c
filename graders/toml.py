"""TOML reading on every supported Python: the standard library's `tomllib` (3.11+), else the `tomli`
backport it was taken from (same API; a dependency of the grader on Python 3.10 only, pyproject.toml).

Import `loads` and `TOMLDecodeError` from here, never `tomllib` directly, so the grader runs on 3.10.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:  # pragma: no cover - exercised by tests/test_python310.py under a 3.10 interpreter
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
