"""The misconception catalogue (problems/misconceptions.toml): what each nameable misconception is,
in the lecture's words. Read by the student reports (reports.render) and Gradescope's output (graders.record).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Dict

from . import paths, toml

MISCONCEPTIONS = paths.PROBLEMS / "misconceptions.toml"


@dataclass(frozen=True)
class Misconception:
    """One catalogue entry; `explanation` and `reread` are markdown written by course staff."""

    #: the stable id (CONTRACT §6), also the TOML table name
    id: str
    #: one line, shown as a heading
    title: str
    #: what the student did and why it is wrong, one paragraph
    explanation: str
    #: what to reread in the course material
    reread: str


@lru_cache(maxsize=1)
def misconceptions() -> Dict[str, Misconception]:
    """Every catalogue entry by id (an empty catalogue if the file is absent)."""
    raw = toml.loads(MISCONCEPTIONS.read_text(encoding="utf-8")) if MISCONCEPTIONS.is_file() else {}
    return {
        key: Misconception(key, v.get("title", key), v.get("explanation", ""), v.get("reread", ""))
        for key, v in raw.items()
    }


def explain(mid: str) -> Misconception:
    """The entry of `mid`; an id missing from the catalogue is its own title, without explanation."""
    return misconceptions().get(mid, Misconception(mid, mid, "", ""))
