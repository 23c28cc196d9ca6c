"""A class's submissions folder: which entries are submissions, and the name each is known by.

`discover` is the one definition: `batch` grades what it lists and the similarity screening compares what it
lists, under the same names (those names key the gradebook and name the output folders).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .gradebook import GRADEBOOK
from .safetext import one_line

#: Files of DIR itself; no submission may be named like them.
RESERVED = {"index.html", "grades.csv", GRADEBOOK, f"{GRADEBOOK}-wal", f"{GRADEBOOK}-shm",
            "similarity.csv", "similarity.html", "similarity.json"}


class BatchUsageError(Exception):
    """A batch (or a screening of a class) cannot start: bad folder, clashing names, unreachable scheduler, busy DIR."""


@dataclass(frozen=True)
class Entry:
    """One submission found in the submissions folder."""

    #: entry name without .zip
    name: str
    path: Path


#: longest submission name kept whole (UTF-8 bytes); an output folder name must stay under 255
NAME_BYTES = 120


def submission_name(raw: str) -> str:
    """The entry name as it keys the gradebook and names the output folder: itself when printable and
    short; else its one-line form cut to NAME_BYTES, plus 8 hex digits of the raw name's hash (two raw
    names that escape alike stay two students; a long name never exceeds the file-name limit)."""
    name = one_line(raw)
    if name == raw and len(name.encode("utf-8")) <= NAME_BYTES:
        return name
    cut = name.encode("utf-8")[:NAME_BYTES].decode("utf-8", "ignore")
    digest = hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{cut}-{digest}"


def discover(submissions_dir: Path, out_dir: Optional[Path] = None) -> Tuple[List[Entry], List[str]]:
    """(submissions, ignored entry names). Hidden entries and the output folder are skipped.

    A submission is named by its entry name (without .zip) made one short printable line (`submission_name`):
    that name keys its gradebook record and names its output folder, so a name built of escape
    sequences or newlines reaches no output verbatim. Ignored names are returned the same way.
    """
    if not submissions_dir.is_dir():
        raise BatchUsageError(f"{one_line(str(submissions_dir))} is not a folder")
    out_resolved = out_dir.resolve() if out_dir else None
    # absolute, but the entry itself is not resolved: intake refuses symlinked submissions
    base = submissions_dir.resolve()
    entries: Dict[str, Entry] = {}
    ignored: List[str] = []
    for item in sorted(submissions_dir.iterdir(), key=lambda p: p.name):
        if item.name.startswith(".") or (out_resolved and item.resolve() == out_resolved):
            continue
        if item.is_dir():
            name = submission_name(item.name)
        elif item.name.lower().endswith(".zip"):
            name = submission_name(item.name[: -len(".zip")])
        else:
            ignored.append(one_line(item.name))
            continue
        if name in entries:
            raise BatchUsageError(f"two entries are both named '{name}': "
                                  f"{one_line(entries[name].path.name)} and {one_line(item.name)}")
        if name in RESERVED or not name:
            raise BatchUsageError(f"'{one_line(item.name)}': a submission cannot be named '{name}' "
                                  "(reserved in the output folder)")
        entries[name] = Entry(name, base / item.name)
    return list(entries.values()), ignored
