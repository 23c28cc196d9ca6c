"""Stand-in for Hugging Face `datasets`, which an llmsys run_sentiment.py imports at top level.

Grading never downloads data: the probes feed the network prepared inputs.
Importing this module works (so the student's file loads); using it says why not.
"""


def load_dataset(*args, **kwargs):
    raise RuntimeError("datasets.load_dataset is not available while grading; the grader supplies the inputs")
