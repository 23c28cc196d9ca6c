"""Packages the course's environment has and the grading sandbox does not (child side).

The course's `project/run_sentiment.py` imports `embeddings` (GloVe vectors)
and Hugging Face `datasets` at top level for its `__main__` block; students
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

from _progress import EXPORTS as _PROGRESS
from _standin import StandInFinder, StandInModule

_INPUTS = "the grader supplies the inputs, so graded code must not load data or embeddings itself"

#: top-level package -> (what it is, names it really provides, what to do instead)
PACKAGES = {
    "datasets": ("Hugging Face datasets, which the course's run_sentiment.py loads SST-2 with", {}, _INPUTS),
    "embeddings": ("the GloVe `embeddings` package, which the course's run_sentiment.py reads word vectors with", {},
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
