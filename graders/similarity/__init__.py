"""Similarity screening across a class: `autograde similarity` (and the last step of `batch`).

Method: document fingerprinting by *winnowing*, as MOSS does — S. Schleimer, D. S. Wilkerson and
A. Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003
(doi:10.1145/872757.872770) — on normalised syntax trees rather than characters:

1. every file a student writes (the offering's contract files, read through intake exactly as
   grading reads them) is parsed and cut into *units*: one per function or method, one per class
   body, one for the module's other statements (`fingerprints.units_of`);
2. a unit is a sequence of syntax-node types in pre-order, with identifiers, attribute and argument
   names, numbers and strings replaced by their kind and docstrings, comments, annotations and
   formatting gone: renaming, reformatting and reordering functions change nothing;
3. every run of k tokens (a k-gram) is hashed; k-grams of the code given to everyone (the student
   template of the offering and any `--base` file, e.g. the course's starters) are excluded, and
   winnowing keeps the smallest remaining hash of every window of w k-grams: any shared run of at
   least k + w - 1 tokens is found, and no run shorter than k (`fingerprints.winnow`);
4. an inverted index (fingerprint -> submissions) gives the shared fingerprints of every pair without
   comparing pairs one by one; fingerprints most of a large class holds are common idioms and are
   dropped (`index.score_class`). A pair's score is the share of the smaller submission's
   fingerprints that the other holds, so added dead code does not hide a copy.

A score is a lead for a human, never a verdict: the report shows the matched code side by side.

Outputs, all written atomically into DIR by `reports.similarity_report.write_similarity_outputs` (the page is
a report; the data files are made here):

- `similarity.csv`: one row per pair, highest score first: `a, b, score, shared` (fingerprints both
  hold), `share_a, share_b` (the share of each one's fingerprints the other holds), `file` (where
  most of them are); every cell through `safetext.csv_cell` (a folder named `=HYPERLINK(...)` stays text);
- `similarity.html`: the ranked pairs, a histogram of every score, and for the DETAIL_PAIRS highest
  pairs the matched units side by side with the matched lines highlighted (bounded in size for any
  class: the rest is in the CSV);
- `similarity.json`: the summary the class report reads (threshold, the pairs at or above it).
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import List, Optional, Sequence, Set

from ..faults import inject
from ..safetext import csv_cell, one_line
from ..submissions import Entry
from ..workers import cores, die_with_parent, safe_path_children
from ..workspace import workspace_dir
from .collect import class_entries, contract_files, given_code, read_student
from .fingerprints import all_kgrams
from .index import Caches, Document, PairScore, Settings, build_document, score_class

__all__ = ["ClassSimilarity", "Settings", "SimilaritySummary", "Uncompared", "screen_class", "similarity_csv",
           "summary", "summary_json", "load_summary", "remove_outputs", "OUTPUT_FILES"]

CSV_NAME = "similarity.csv"
HTML_NAME = "similarity.html"
JSON_NAME = "similarity.json"
OUTPUT_FILES = (CSV_NAME, HTML_NAME, JSON_NAME)
#: Flagged pairs kept in similarity.json (the class report lists fewer; the CSV has them all).
SUMMARY_PAIRS = 100
CSV_COLUMNS = ("a", "b", "score", "shared", "share_a", "share_b", "file")


@dataclass
class ClassSimilarity:
    """The screening of one class."""

    #: one per submission, in the order `batch` discovers them
    documents: List[Document]
    #: every pair, highest score first
    pairs: List[PairScore]
    #: fingerprints too common to be evidence (see `index.Settings.common_limit`)
    common: Set[int]
    settings: Settings
    #: files skipped and why, one line each (students' and base files)
    notes: List[str] = field(default_factory=list)
    #: labels of the given code excluded (template files, --base files)
    given: List[str] = field(default_factory=list)
    seconds: float = 0.0
    #: ISO 8601 UTC time of the screening
    generated_at: str = ""

    @property
    def flagged(self) -> List[PairScore]:
        """Pairs at or above the attention threshold."""
        return [p for p in self.pairs if p.score >= self.settings.threshold]

    @property
    def uncompared(self) -> List[Uncompared]:
        """Submissions with a file (or all of them) the screening could not compare: listed for attention."""
        return [Uncompared(d.name, "; ".join(d.uncompared)) for d in self.documents if d.uncompared]


def excluded_kgrams(sources: dict, settings: Settings, notes: List[str]) -> Set[int]:
    """Every k-gram of the given code (files that do not parse are skipped with a note)."""
    excluded: Set[int] = set()
    for label, text in sources.items():
        try:
            excluded |= all_kgrams(text, label, settings.k)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            notes.append(one_line(f"base {label}: skipped ({type(exc).__name__}: {exc})"))
    return excluded


def fingerprint_entry(entry: Entry, wanted: Sequence[str], workspace: Path, settings: Settings,
                      excluded: Set[int], caches: Caches) -> Document:
    """One submission's document. Never raises: a submission intake or the parser cannot handle
    becomes an empty document with a note (it then shares nothing with anyone)."""
    try:
        return build_document(read_student(entry, wanted, workspace), settings, excluded, caches)
    except Exception as exc:  # a hostile archive or file must not stop the class's screening
        why = one_line(f"not read ({type(exc).__name__}: {exc})")
        return Document(entry.name, notes=[one_line(f"{entry.name}: {why}")], uncompared=[why])


#: a class this big or bigger is fingerprinted by worker processes (a smaller one costs less than their start)
PARALLEL_FROM = 64
#: shares of the class per worker (a share is a run of consecutive submissions: study groups, named alike, stay
#: together and share the unit cache of the process that fingerprints them)
SHARES_PER_WORKER = 4


def fingerprint_class(entries: Sequence[Entry], wanted: Sequence[str], settings: Settings, excluded: Set[int],
                      jobs: Optional[int] = None) -> List[Document]:
    """Every entry's document, in the entries' order.

    A document depends on its submission alone (the unit cache is keyed by a unit's whole text), so how the class
    is shared out changes nothing. A class of PARALLEL_FROM or more, with two jobs or more (at most one per core),
    is fingerprinted by spawned worker processes (no fork of a process that runs threads), each killed when this
    process dies and started without the current folder on its path (`safe_path_children`); when
    a worker fails or cannot start, the whole class is fingerprinted again here, serially (the same result, later),
    and a line on stderr says so."""
    jobs = min(jobs or cores(), cores())  # more workers than cores only cost memory
    if jobs < 2 or len(entries) < PARALLEL_FROM:
        return fingerprint_serially(entries, wanted, settings, excluded)
    try:
        return _fingerprint_in_workers(entries, wanted, settings, excluded, jobs)
    except Exception as exc:  # a lost worker (BrokenProcessPool), no process or semaphore to be had, a result that
        # would not cross back: one process gives the same documents
        print(f"autograde: the similarity workers failed ({one_line(f'{type(exc).__name__}: {exc}')}): "
              "fingerprinting in one process instead", file=sys.stderr)
        return fingerprint_serially(entries, wanted, settings, excluded)


def fingerprint_serially(entries: Sequence[Entry], wanted: Sequence[str], settings: Settings,
                         excluded: Set[int]) -> List[Document]:
    """The entries' documents, made one after the other in this process (one unit cache for all)."""
    caches = Caches()
    with workspace_dir() as scratch:
        return [fingerprint_entry(entry, wanted, scratch, settings, excluded, caches) for entry in entries]


def _fingerprint_in_workers(entries: Sequence[Entry], wanted: Sequence[str], settings: Settings,
                            excluded: Set[int], jobs: int) -> List[Document]:
    count = max(1, min(jobs * SHARES_PER_WORKER, len(entries)))
    size = -(-len(entries) // count)
    shares = [list(entries[i:i + size]) for i in range(0, len(entries), size)]
    with safe_path_children():  # the pool's resource tracker starts with it, its workers while map submits the shares
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker, initargs=(os.getpid(), list(wanted), settings, excluded))
        try:
            done = list(pool.map(_fingerprint_share, shares))
        except BaseException:  # a worker lost, or this process interrupted (Ctrl-C): no waiting for the other shares
            _stop(pool)
            raise
    pool.shutdown(wait=True)
    return [document for share in done for document in share]


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers now and let the pool go: an interrupted screening, or one whose worker failed, must
    not wait for the shares still running (a second Ctrl-C during that wait left the process hanging at exit)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):  # the pool's own: no public handle
        process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


#: what every share of a worker is fingerprinted with (set once, when the worker starts)
_WORKER: dict = {}


def _start_worker(parent: int, wanted: List[str], settings: Settings, excluded: Set[int]) -> None:
    """A worker's start: killed when `parent` dies (PR_SET_PDEATHSIG, as batch's workers are), and given what
    every share needs."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent stops workers
    inject("similarity-worker")
    _WORKER.update(wanted=wanted, settings=settings, excluded=excluded, caches=Caches())


def _fingerprint_share(share: List[Entry]) -> List[Document]:
    """(In a worker.) The documents of one share, with the worker's unit cache."""
    with workspace_dir() as scratch:
        return [fingerprint_entry(entry, _WORKER["wanted"], scratch, _WORKER["settings"], _WORKER["excluded"],
                                  _WORKER["caches"]) for entry in share]


def screen_class(submissions_dir: Path, out_dir: Optional[Path] = None, bases: Sequence[Path] = (),
                 offering: Optional[str] = None, settings: Settings = Settings(),
                 jobs: Optional[int] = None) -> ClassSimilarity:
    """Fingerprint every submission of `submissions_dir` and score every pair (see the module docstring); a class
    of PARALLEL_FROM or more is fingerprinted by `jobs` worker processes (default: one per core).

    Never raises on a student's file: what cannot be read is a note. Raises BatchUsageError (from
    `submissions.discover`) when `submissions_dir` is not a folder or two entries have the same name, and
    SpecError for an unknown offering.
    """
    from ..offering import get_offering

    clock = time.monotonic()
    chosen = get_offering(offering)
    wanted = contract_files(chosen)
    entries, notes = class_entries(submissions_dir, out_dir)
    given = given_code(chosen, bases)
    notes.extend(given.notes)
    excluded = excluded_kgrams(given.sources, settings, notes)
    documents = fingerprint_class(entries, wanted, settings, excluded, jobs)
    notes.extend(note for document in documents for note in document.notes)
    pairs, common = score_class(documents, settings)
    return ClassSimilarity(
        documents=documents, pairs=pairs, common=common, settings=settings, notes=notes,
        given=list(given.sources), seconds=round(time.monotonic() - clock, 3),
        generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def similarity_csv(result: ClassSimilarity) -> str:
    """similarity.csv: one row per pair, highest first (see the module docstring)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    # a class of n has n names, each in n - 1 rows: each name's cell is made once
    cell = lru_cache(maxsize=None, typed=True)(csv_cell)
    writer.writerows([cell(p.a), cell(p.b), cell(p.score), cell(p.shared), cell(p.share_a), cell(p.share_b),
                      cell(p.file)] for p in result.pairs)
    return out.getvalue()


@dataclass(frozen=True)
class Uncompared:
    """A submission screening could not compare in full ("could not be compared"), and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class FlaggedPair:
    """A pair at or above the threshold, as the class report lists it."""

    rank: int
    a: str
    b: str
    score: float
    file: str
    #: the id of its side-by-side view in similarity.html ('' when it is not shown there)
    anchor: str


@dataclass(frozen=True)
class SimilaritySummary:
    """similarity.json: what the class report needs, without reading the whole CSV."""

    generated_at: str
    threshold: float
    submissions: int
    pairs: int
    #: how many pairs are at or above the threshold (flagged lists at most SUMMARY_PAIRS of them)
    flagged_count: int
    flagged: List[FlaggedPair]
    notes: int
    #: submissions that could not be compared (at most SUMMARY_PAIRS; listed for attention)
    uncompared: List[Uncompared] = field(default_factory=list)


def pair_anchor(rank: int) -> str:
    """The id of the rank-th pair's side-by-side view in similarity.html."""
    return f"pair-{rank}"


def summary(result: ClassSimilarity, detailed: int) -> SimilaritySummary:
    """The summary of `result`, whose `detailed` highest pairs have a side-by-side view."""
    flagged = result.flagged
    return SimilaritySummary(
        generated_at=result.generated_at, threshold=result.settings.threshold, submissions=len(result.documents),
        pairs=len(result.pairs), flagged_count=len(flagged), notes=len(result.notes),
        flagged=[FlaggedPair(rank, p.a, p.b, p.score, p.file,
                             pair_anchor(rank) if rank <= detailed and p.shared else "")
                 for rank, p in enumerate(flagged[:SUMMARY_PAIRS], start=1)],
        uncompared=result.uncompared[:SUMMARY_PAIRS],
    )


def summary_json(value: SimilaritySummary) -> str:
    """similarity.json's text (`load_summary` reads it back)."""
    doc = dict(value.__dict__)
    doc["flagged"] = [dict(f.__dict__) for f in value.flagged]
    doc["uncompared"] = [dict(u.__dict__) for u in value.uncompared]
    return json.dumps(doc, indent=1)


def load_summary(out_dir: Path) -> Optional[SimilaritySummary]:
    """The summary in `out_dir`, or None when there is none (or it is unreadable, or its page is gone)."""
    try:
        if not (out_dir / HTML_NAME).is_file():
            return None
        doc = json.loads((out_dir / JSON_NAME).read_text(encoding="utf-8"))
        flagged = [FlaggedPair(int(f["rank"]), str(f["a"]), str(f["b"]), float(f["score"]), str(f["file"]),
                               str(f["anchor"])) for f in doc["flagged"]]
        uncompared = [Uncompared(str(u["name"]), str(u["reason"])) for u in doc.get("uncompared", [])]
        return SimilaritySummary(str(doc["generated_at"]), float(doc["threshold"]), int(doc["submissions"]),
                                 int(doc["pairs"]), int(doc["flagged_count"]), flagged, int(doc["notes"]),
                                 uncompared)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove_outputs(out_dir: Path) -> None:
    """Delete the outputs of an earlier screening (a failed one must not leave a stale page linked)."""
    for name in OUTPUT_FILES:
        try:
            os.unlink(out_dir / name)
        except FileNotFoundError:
            pass
