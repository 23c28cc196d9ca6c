"""Probes of a throw-away problem (tests/test_course_imports.py) run in the real sandbox: they report what the
harness installed and what the import stand-ins do, as plain data."""

import sys

import probekit
from probekit import PROBES, probe  # noqa: F401


def _student():
    return sys.modules["project._student_run_sentiment"]


@probe("loss")
def loss(_):
    """Which function the swap installed under the canonical name."""
    import project.run_sentiment as rs

    fn = rs.binary_cross_entropy_loss
    code = getattr(fn, "__code__", None)
    return {"name": fn.__name__, "from_student": code is not None and code.co_filename == probekit.STUDENT_FILE}


@probe("packages")
def packages(_):
    student = _student()
    return {"progress": student._course_progress(), "debugger": student._course_debugger(),
            "data": student._course_data()}
