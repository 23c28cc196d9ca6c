"""Where the grader finds its own material (the repository layout of CONTRACT §1)."""

from __future__ import annotations

import os
from pathlib import Path

#: The repository (or unpacked autograder) root: graders/, problems/, reference/ live here.
ROOT = Path(os.environ.get("AUTOGRADE_ROOT", Path(__file__).resolve().parent.parent))
REFERENCE = ROOT / "reference"
PROBLEMS = ROOT / "problems"
STUDENT_TEMPLATE = ROOT / "student_template"
TEMPLATE_EXTRAS = Path(__file__).resolve().parent / "template_extras"
