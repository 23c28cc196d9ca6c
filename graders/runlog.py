"""What each sandboxed run cost, appended to a file for whoever asks (`AUTOGRADE_RUN_LOG`).

Off unless the variable names a file. With it, every child the grader runs (a student's, and the reference's
and mutants' runs it builds for its cache) adds one JSON line: the problem, what ran, the CPU seconds its whole
process tree used as its control group counted them (null without one), the wall seconds, and the pytest test
that caused it (`PYTEST_CURRENT_TEST`, when there is one). `benchmarks/suite.py` reads the file to say where
the test suite's CPU goes; nothing in grading reads it. Each line is one `write` to a file opened for appending,
so the processes and threads of a parallel batch or test run never interleave their lines.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional

from .results import ChildRun

RUN_LOG_ENV = "AUTOGRADE_RUN_LOG"


def note_run(problem: str, kind: str, run: ChildRun, path: Optional[str] = None,
             graded_file: Optional[Path] = None) -> None:
    """Append `run`'s cost to the run log (`path`, default the file AUTOGRADE_RUN_LOG names; nothing without
    one). `kind`: "student", "reference" or the mutant's label; `graded_file`: the file the child graded, whose
    digest tells runs of the same text apart from others (null without one). A log that cannot be written is
    skipped: a measurement never fails a grading."""
    path = path or os.environ.get(RUN_LOG_ENV)
    if not path:
        return
    try:
        digest = hashlib.sha256(graded_file.read_bytes()).hexdigest()[:16] if graded_file else None
        append_line(path, {"problem": problem, "kind": kind, "cpu_seconds": run.cpu_seconds,
                           "wall_seconds": round(run.seconds, 3), "probes": len(run.outcomes), "file": digest,
                           "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]})
    except OSError:
        pass


def append_line(path: str, record: Dict[str, Any]) -> None:
    """`record` as one JSON line at the end of `path`, in one `write` to a file opened for appending (lines of
    concurrent writers never interleave); raises OSError."""
    handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(handle, (json.dumps(record) + "\n").encode())
    finally:
        os.close(handle)
