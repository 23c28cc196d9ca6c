"""The class index: every submission's fingerprints, an inverted index, and a score per pair.

Contract:

- `build_document(code, settings, excluded, caches)` fingerprints one submission's files into a
  `Document` (a file whose text was already seen in this screening is not parsed again, a unit whose
  text was seen is not walked again).
- `score_class(documents, settings)` inverts the fingerprints (fingerprint -> the submissions holding
  it), drops the *common* ones (held by more than `settings.common_limit(n)` submissions: idioms every
  solution writes, or code handed out that no `--base` names, as MOSS's `-m` does), and counts, for
  every pair, the fingerprints both hold, by walking each fingerprint's short list of holders:
  the work follows the number of shared fingerprints, never the number of pairs times file sizes.
  Every pair gets a `PairScore`, pairs sharing nothing score 0; the list is sorted highest first.
- The score of a pair is the share of the *smaller* submission's (non-common) fingerprints that the
  other holds too, `shared / max(min(|A|, |B|), min_prints)`, in [0, 1]: a copy scores near 1 however
  much dead code it adds; a submission with fewer than `min_prints` fingerprints of its own (little
  code beyond the template) cannot reach a high score on a few coincidences.
- `matched_units(a, b, common)` pairs the units of two documents that share fingerprints, with the
  lines each shared fingerprint covers: the side-by-side view of the report.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Collection, Dict, List, Optional, Sequence, Set, Tuple

from ..safetext import one_line
from .collect import StudentCode
from .fingerprints import FilePrints, Unit, UnitCache, fingerprint_file, source_lines

#: (unit index, first line, last line) of one occurrence of a fingerprint in a document
Occurrence = Tuple[int, int, int]


@dataclass(frozen=True)
class Settings:
    """How a class is screened (the defaults are the ones the tests and the benchmark validate)."""

    #: tokens per k-gram: shared runs shorter than this are noise and never seen
    k: int = 8
    #: winnowing window in k-grams: any shared run of k + w - 1 tokens is guaranteed to be found
    w: int = 6
    #: a fingerprint held by more than max(common_floor, common_share * class size) submissions is common
    common_floor: int = 10
    common_share: float = 0.05
    #: fingerprints a submission needs before its share can count fully (see the module docstring)
    min_prints: int = 10
    #: pairs scoring at least this are listed under the class report's attention items
    threshold: float = 0.7

    def common_limit(self, size: int) -> int:
        """Most submissions a fingerprint may be held by and still be evidence."""
        return max(self.common_floor, int(self.common_share * size))


@dataclass
class Document:
    """One submission as the index sees it."""

    name: str
    #: every unit of its files with fingerprints, in file order (a fingerprint names its unit by index)
    units: List[Unit] = field(default_factory=list)
    #: fingerprint hash -> its occurrences
    prints: Dict[int, List[Occurrence]] = field(default_factory=dict)
    #: contract path -> source lines, for the files that have fingerprints (the side-by-side view)
    lines: Dict[str, List[str]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    #: files (or the whole submission) screening could not compare, one line each: the class report lists
    #: the submission for attention ("could not be compared"), it is never passed as sharing nothing
    uncompared: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class PairScore:
    """How much of their own code two submissions share."""

    a: str
    b: str
    #: see the module docstring; in [0, 1]
    score: float
    #: fingerprints both hold (common ones and given code left out)
    shared: int
    #: shares of a's and of b's fingerprints that the other holds too
    share_a: float
    share_b: float
    #: the contract file of a holding most of the shared fingerprints ('' when none)
    file: str = ""


@dataclass
class UnitMatch:
    """A unit of `a` and a unit of `b` sharing fingerprints, with the lines they cover on each side."""

    unit_a: Unit
    unit_b: Unit
    shared: int
    lines_a: Set[int]
    lines_b: Set[int]


@dataclass
class Caches:
    """What one screening has already computed: whole files by content, units by source text."""

    #: (contract path, sha256 of the text) -> its fingerprints (units are shared: treat them as read-only)
    files: Dict[Tuple[str, str], FilePrints] = field(default_factory=dict)
    units: UnitCache = field(default_factory=dict)


def build_document(code: StudentCode, settings: Settings, excluded: Collection[int],
                   caches: Optional[Caches] = None) -> Document:
    """Fingerprint every readable file of `code` (see the module docstring)."""
    document = Document(code.name, notes=list(code.notes), uncompared=list(code.uncompared))
    caches = caches or Caches()
    for path, text in code.sources.items():
        key = (path, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
        found = caches.files.get(key)
        if found is None:
            try:
                found = fingerprint_file(text, path, settings.k, settings.w, excluded, caches.units)
            except Exception as exc:  # fail closed: the file is listed, the submission's other files still count
                document.uncompared.append(one_line(f"{path}: {uncompared_reason(exc)}"))
                continue
            caches.files[key] = found
        if not found.prints:
            continue
        offset = len(document.units)
        document.units.extend(found.units)
        document.lines[path] = source_lines(text)
        for fp in found.prints:
            document.prints.setdefault(fp.hash, []).append((offset + fp.unit, fp.first_line, fp.last_line))
    return document


def uncompared_reason(exc: BaseException) -> str:
    """Why a file could not be fingerprinted, in a TA's words."""
    if isinstance(exc, RecursionError):
        return "nesting too deep for the screening"
    if isinstance(exc, MemoryError):
        return "too large for the screening's memory"
    return f"the screening's parser failed ({type(exc).__name__}: {exc})"


def common_prints(documents: Sequence[Document], settings: Settings) -> Set[int]:
    """Fingerprints held by more submissions than `settings.common_limit` allows."""
    holders = Counter(h for d in documents for h in d.prints)
    limit = settings.common_limit(len(documents))
    return {h for h, count in holders.items() if count > limit}


@dataclass
class SharedCounts:
    """What the inverted index tells about every pair that shares something."""

    #: (i, j) with i < j -> fingerprints documents i and j both hold
    shared: Dict[Tuple[int, int], int] = field(default_factory=dict)
    #: (i, j) -> the contract file of document i holding most of them
    file: Dict[Tuple[int, int], str] = field(default_factory=dict)


def shared_counts(documents: Sequence[Document], common: Collection[int]) -> SharedCounts:
    """Count, from the inverted index, the fingerprints every pair holds in common (and where in the first).

    A holder is encoded as `document index * F + file index` (F files), so one pass gives both counts."""
    files = sorted({u.file for d in documents for u in d.units})
    number = {f: n for n, f in enumerate(files)}
    width = max(1, len(files))
    holders: Dict[int, List[int]] = {}
    for index, document in enumerate(documents):
        for h, where in document.prints.items():
            if h not in common:
                holders.setdefault(h, []).append(index * width + number[document.units[where[0][0]].file])
    counts: Counter = Counter()
    for owners in holders.values():
        if len(owners) > 1:
            counts.update(itertools.combinations(owners, 2))
    result = SharedCounts()
    by_file: Dict[Tuple[int, int], Counter] = {}
    for (x, y), count in counts.items():
        pair = (x // width, y // width)
        result.shared[pair] = result.shared.get(pair, 0) + count
        by_file.setdefault(pair, Counter())[files[x % width]] += count
    result.file = {pair: tally.most_common(1)[0][0] for pair, tally in by_file.items()}
    return result


def own_prints(document: Document, common: Collection[int]) -> int:
    return sum(1 for h in document.prints if h not in common)


def score_class(documents: Sequence[Document], settings: Settings) -> Tuple[List[PairScore], Set[int]]:
    """(every pair's score, highest first; the common fingerprints)."""
    common = common_prints(documents, settings)
    counts = shared_counts(documents, common)
    sizes = [own_prints(d, common) for d in documents]
    pairs: List[PairScore] = []
    for i, j in itertools.combinations(range(len(documents)), 2):
        a, b = documents[i], documents[j]
        shared = counts.shared.get((i, j), 0)
        if not shared:
            pairs.append(PairScore(a.name, b.name, 0.0, 0, 0.0, 0.0))
            continue
        score = min(1.0, shared / max(min(sizes[i], sizes[j]), settings.min_prints))
        pairs.append(PairScore(a.name, b.name, round(score, 4), shared, round(shared / sizes[i], 4),
                               round(shared / sizes[j], 4), counts.file[(i, j)]))
    pairs.sort(key=lambda p: (-p.score, -p.shared, p.a, p.b))
    return pairs, common


def matched_units(a: Document, b: Document, common: Collection[int]) -> List[UnitMatch]:
    """Units of `a` and `b` sharing fingerprints, most shared first."""
    groups: Dict[Tuple[int, int], UnitMatch] = {}
    for h in a.prints.keys() & b.prints.keys():
        if h in common:
            continue
        where_a, where_b = a.prints[h], b.prints[h]
        key = (where_a[0][0], where_b[0][0])
        match = groups.get(key)
        if match is None:
            match = groups[key] = UnitMatch(a.units[key[0]], b.units[key[1]], 0, set(), set())
        match.shared += 1
        for unit, first, last in where_a:
            if unit == key[0]:
                match.lines_a.update(range(first, last + 1))
        for unit, first, last in where_b:
            if unit == key[1]:
                match.lines_b.update(range(first, last + 1))
    return sorted(groups.values(), key=lambda m: (-m.shared, m.unit_a.file, m.unit_a.first_line))


def unit_labels(matches: Sequence[UnitMatch], most: int = 3) -> Tuple[str, ...]:
    """`a's unit ~ b's unit` for the first `most` matches."""
    return tuple(f"{m.unit_a.name} ~ {m.unit_b.name}" for m in matches[:most])
