"""The misconception catalogue: what each nameable misconception is, in the lecture's words.

The shared file `problems/misconceptions.toml`, merged with any problem's own
`problems/<id>/misconceptions.toml` (a problem brings the misconceptions it names); an id defined twice
is an error naming both files. Read by the student reports (reports.render), Gradescope's output
(graders.record) and `autograde check-problems`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional

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


class CatalogueError(ValueError):
    """A catalogue file is malformed, or two define the same id (the message names the files)."""


def catalogue_files(root: Optional[Path] = None) -> List[Path]:
    """The shared catalogue, then each problem folder's own, in folder order (existing files only)."""
    root = root or paths.PROBLEMS
    shared = root / "misconceptions.toml"
    own = sorted(root.glob("*/misconceptions.toml"))
    return ([shared] if shared.is_file() else []) + own


def load_catalogue(root: Optional[Path] = None) -> Dict[str, Misconception]:
    """Every entry of every catalogue file under `root` by id; an id defined twice is refused."""
    entries: Dict[str, Misconception] = {}
    origin: Dict[str, Path] = {}
    for path in catalogue_files(root):
        try:
            raw = toml.loads(path.read_text(encoding="utf-8"))
        except toml.TOMLDecodeError as exc:
            raise CatalogueError(f"{path}: {exc}") from exc
        for key, v in raw.items():
            if key in origin:
                raise CatalogueError(f"{path}: misconception '{key}' is already defined in {origin[key]}")
            if not isinstance(v, dict):
                raise CatalogueError(f"{path}: '{key}' must be a table with title, explanation and reread")
            origin[key] = path
            entries[key] = Misconception(key, v.get("title", key), v.get("explanation", ""), v.get("reread", ""))
    return entries


@lru_cache(maxsize=1)
def misconceptions() -> Dict[str, Misconception]:
    """Every catalogue entry of the grader's problems by id (empty if there is no catalogue)."""
    return load_catalogue()


def explain(mid: str) -> Misconception:
    """The entry of `mid`; an id missing from the catalogue is its own title, without explanation."""
    return misconceptions().get(mid, Misconception(mid, mid, "", ""))
