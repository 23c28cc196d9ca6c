"""A child's start-up (graders/child/harness.py): what the trusted process makes before it forks the student's
process, and what the student's process finds when its file is loaded."""

from __future__ import annotations

import shutil

from graders.baseline import child_config, limits_for
from graders.probe import run_child
from graders.spec import load_problems

#: a student's run_sentiment.py that says, as its import error, how many objects the garbage collector holds
#: frozen when the file is loaded
FROZEN_AT_LOAD = "import gc\nraise RuntimeError(f'frozen={gc.get_freeze_count()}')\n"


def test_the_student_process_starts_with_the_imports_frozen(tmp_path):
    """The trusted process settles its heap (collects, then freezes what the imports made) BEFORE the fork: the
    student's process starts with numpy's and the framework's tens of thousands of objects out of the collector's
    reach, so neither process walks them again, and the student's does not copy their pages by touching them
    (a network child's CPU fell from about 163 ms to 141 ms). Settling only after the fork leaves none frozen when
    the student's file is loaded."""
    (spec,) = load_problems(only=["network"])
    staged = tmp_path / "run_sentiment.py"
    staged.write_text(FROZEN_AT_LOAD)
    staged.chmod(0o644)
    tmp_path.chmod(0o755)
    run = run_child(child_config(spec, tmp_path / "run", 0, staged), limits_for(spec))
    shutil.rmtree(tmp_path / "run", ignore_errors=True)
    assert run.load_error is not None, run.notes
    message = str(run.load_error.get("message"))
    assert message.startswith("frozen="), message
    assert int(message.split("=", 1)[1]) > 10_000, message

