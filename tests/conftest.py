"""Shared fixtures: one grader cache per test session (reference and mutant runs are computed once)."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def grader_cache(tmp_path_factory):
    """Point the grader at a fresh cache unless the caller set AUTOGRADE_CACHE."""
    if "AUTOGRADE_CACHE" not in os.environ:
        os.environ["AUTOGRADE_CACHE"] = str(tmp_path_factory.mktemp("autograde-cache"))
    yield Path(os.environ["AUTOGRADE_CACHE"])
