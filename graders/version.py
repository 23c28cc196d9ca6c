"""The grader version: a hash of everything that can change a grade.

Caches are keyed by it (graders.cache), results and gradebook records carry it, and `batch` regrades a
submission recorded under another one. What cannot change a grade (the CLI, batch bookkeeping, packaging, the
problems' test material) is left out, so editing it regrades nobody.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from . import paths

#: grader modules that cannot change a grade (CLI, batch bookkeeping, packaging): not in the version hash
NOT_GRADING = {"cli.py", "batch.py", "submissions.py", "gradebook.py", "gradebook_api.py", "clusters.py",
               "gradescope.py", "make_template.py", "__main__.py"}


#: folders of a problem that only the project's tests and students read (never a grade): not in the version hash
PROBLEM_TEST_MATERIAL = ("valid", "buggy", "public")


@lru_cache(maxsize=1)
def grader_version() -> str:
    """A hash of everything that can change a grade: the grading stages, problems and reference."""
    digest = hashlib.sha256()
    for base in (paths.ROOT / "graders", paths.PROBLEMS, paths.REFERENCE):
        for rel in paths.files_under(base):
            if base.name == "graders" and (rel.as_posix() in NOT_GRADING or rel.parts[0] == "template_extras"):
                continue
            if base == paths.PROBLEMS and len(rel.parts) > 2 and rel.parts[1] in PROBLEM_TEST_MATERIAL:
                continue
            digest.update(f"{base.name}/{rel.as_posix()}\0".encode())
            digest.update((base / rel).read_bytes())
    return digest.hexdigest()[:16]
