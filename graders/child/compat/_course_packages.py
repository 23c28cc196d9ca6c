"""Packages the course's environment has and the grading sandbox does not (child side).

The course's project scripts (`project/*.py`) import `embeddings` (GloVe vectors)
and Hugging Face `datasets` at top level for their `__main__` blocks; students
add `tqdm` progress bars to their loops. Grading never downloads data (the
probes feed prepared inputs), so:

* `datasets`, `embeddings` (and any submodule: `from datasets.load import
  load_dataset`): every name imports; using one raises a RuntimeError that
  says the grader supplies the inputs;
* `tqdm` (and `tqdm.auto`, `tqdm.notebook`, ...): a silent pass-through
  (`_progress`), so loops wrapped in it run unchanged.

These always win over an installed copy (the finder sits before the path
finders): grading is the same in the weak and the strong sandbox, and never
touches the network.
"""

import importlib.machinery
import os
import sys
import types

from _progress import EXPORTS as _PROGRESS
from _standin import StandInFinder, StandInModule

_INPUTS = "the grader supplies the inputs, so graded code must not load data or embeddings itself"

#: top-level package -> (what it is, names it really provides, what to do instead)
PACKAGES = {
    "datasets": ("Hugging Face datasets, which the course's project scripts load their corpus with", {}, _INPUTS),
    "embeddings": ("the GloVe `embeddings` package, which the course's project scripts read word vectors with", {},
                   _INPUTS),
    "tqdm": ("progress bars", _PROGRESS, "only `tqdm` and `trange` themselves run (silently) while grading"),
}


def _unavailable(name, action, *args, **kwargs):
    what, _, advice = PACKAGES[name.partition(".")[0]]
    raise RuntimeError(f"{name} is not available while grading ({what}); {advice}")


def module_for(fullname):
    """The stand-in module for `fullname` (a package above or one of its submodules)."""
    module = StandInModule(fullname, _unavailable)
    module.__dict__.update(PACKAGES[fullname.partition(".")[0]][1])
    return module


def finder():
    """A meta-path finder serving every package of PACKAGES."""
    return StandInFinder(PACKAGES, module_for)


class MissingPackages(StandInFinder):
    """The last meta-path finder: a package the student's file imports and the sandbox does not have
    (matplotlib, plotly, wandb, ... left over from plotting or logging) imports as a stand-in that
    fails only when used. Only imports written in the student's file itself are served, and only
    after every real finder failed: the framework's own imports stay untouched."""

    def __init__(self, student_file):
        super().__init__((), self._module)
        self.student_file = os.path.abspath(student_file) if student_file else None
        self.served = set()

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in self.served and not (self.student_file and self._imported_by_student()):
            return None
        self.served.add(top)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)  # type: ignore[arg-type]  # as in _standin

    def _imported_by_student(self):
        """True when the import statement running is in the student's file (importlib frames skipped)."""
        frame: types.FrameType | None = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        return frame is not None and os.path.abspath(frame.f_code.co_filename) == self.student_file

    @staticmethod
    def _module(fullname):
        return StandInModule(fullname, _not_installed)


def _not_installed(name, action, *args, **kwargs):
    raise ModuleNotFoundError(
        f"{name}: the package {name.partition('.')[0]} is not installed where grading runs; importing it costs "
        "nothing, but graded code cannot use it"
    )
