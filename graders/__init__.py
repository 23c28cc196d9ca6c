"""The miniTorch autograder: intake → assemble → probe → judge → score → record → render."""

__version__ = "0.1.0"
