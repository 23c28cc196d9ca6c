"""similarity.html: ranked pairs, a histogram of every score, matched code side by side.

The page is bounded whatever the class size: the TABLE_PAIRS highest pairs are listed, the
DETAIL_PAIRS highest have their matched units shown (at most BLOCKS_PER_PAIR units and PAIR_LINES
lines per side each); every pair is in similarity.csv. `write_similarity_outputs` writes the page with the
screening's data files (graders.similarity), as `class_report.write_class_outputs` writes index.html with
grades.csv.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from graders.record import write_atomic
from graders.similarity import (
    CSV_NAME,
    HTML_NAME,
    JSON_NAME,
    ClassSimilarity,
    SimilaritySummary,
    pair_anchor,
    similarity_csv,
    summary,
    summary_json,
)
from graders.similarity.index import Document, PairScore, Unit, matched_units, unit_labels

from .render import environment

#: Pairs listed in the ranked table.
TABLE_PAIRS = 200
#: Pairs whose matched code is shown side by side.
DETAIL_PAIRS = 50
#: Matched units shown per pair (most shared first).
BLOCKS_PER_PAIR = 6
#: Lines shown per side of one pair, over all its units.
PAIR_LINES = 160
#: A unit longer than this shows only its matched lines with CONTEXT lines around them.
UNIT_LINES = 40
CONTEXT = 2
#: Notes listed on the page (the rest are counted).
NOTES_SHOWN = 200


@dataclass(frozen=True)
class CodeLine:
    """One source line of a side; `number` 0 marks a gap (lines left out)."""

    number: int
    text: str
    matched: bool


@dataclass
class Side:
    """One submission's unit in a side-by-side block."""

    submission: str
    file: str
    unit: str
    lines: List[CodeLine]


@dataclass
class Block:
    """A unit of each submission sharing `shared` fingerprints."""

    a: Side
    b: Side
    shared: int


@dataclass
class PairView:
    """One pair of the ranked list, with its side-by-side blocks when it is detailed."""

    rank: int
    pair: PairScore
    #: up to three matched units, `a's unit ~ b's unit`
    units: Tuple[str, ...] = ()
    anchor: str = ""
    blocks: List[Block] = field(default_factory=list)
    #: matched units not shown (over BLOCKS_PER_PAIR or PAIR_LINES)
    more_blocks: int = 0


def _is_code(text: str) -> bool:
    """Not blank and not a comment: a line a fingerprint's span covers but no token came from stays plain."""
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def excerpt(source: Sequence[str], spans: Sequence[Tuple[int, int]], matched: Set[int],
            cap: int = UNIT_LINES, context: int = CONTEXT) -> List[CodeLine]:
    """The lines of a unit (its spans); a unit of more than `cap` lines keeps only its matched lines
    and `context` lines around each, gaps marked by a line numbered 0. Matched lines are highlighted
    unless blank or a comment."""
    numbers = [n for first, last in spans for n in range(first, last + 1) if 1 <= n <= len(source)]
    if len(numbers) > cap:
        near = {m + d for m in matched for d in range(-context, context + 1)}
        numbers = [n for n in numbers if n in near]
    lines: List[CodeLine] = []
    previous = None
    for n in numbers:
        if previous is not None and n != previous + 1:
            lines.append(CodeLine(0, "…", False))
        text = source[n - 1]
        lines.append(CodeLine(n, text, n in matched and _is_code(text)))
        previous = n
    return lines


def _side(document: Document, unit: Unit, matched: Set[int]) -> Side:
    return Side(document.name, unit.file, unit.name, excerpt(document.lines.get(unit.file, []), unit.spans, matched))


def pair_view(rank: int, pair: PairScore, a: Document, b: Document, common: Set[int], anchor: str = "") -> PairView:
    """One pair's row; with an `anchor`, its side-by-side blocks too (within BLOCKS_PER_PAIR and PAIR_LINES)."""
    matches = matched_units(a, b, common)
    view = PairView(rank, pair, unit_labels(matches), anchor)
    if not anchor:
        return view
    used = 0
    for match in matches:
        block = Block(_side(a, match.unit_a, match.lines_a), _side(b, match.unit_b, match.lines_b), match.shared)
        size = max(len(block.a.lines), len(block.b.lines))
        if len(view.blocks) >= BLOCKS_PER_PAIR or (view.blocks and used + size > PAIR_LINES):
            break
        view.blocks.append(block)
        used += size
    view.more_blocks = len(matches) - len(view.blocks)
    return view


def _views(result: ClassSimilarity) -> List[PairView]:
    by_name: Dict[str, Document] = {d.name: d for d in result.documents}
    views: List[PairView] = []
    for rank, pair in enumerate(result.pairs[:TABLE_PAIRS], start=1):
        if pair.shared == 0:
            break
        anchor = pair_anchor(rank) if rank <= DETAIL_PAIRS else ""
        views.append(pair_view(rank, pair, by_name[pair.a], by_name[pair.b], result.common, anchor))
    return views


def render_similarity(result: ClassSimilarity, links: Dict[str, str]) -> str:
    """similarity.html of a `graders.similarity.ClassSimilarity`: self-contained (inline SVG, no script)."""
    from .class_figures import similarity_histogram

    scores = [p.score for p in result.pairs]
    return environment().get_template("similarity.html").render(
        screening=result, views=_views(result), links=links,
        histogram=similarity_histogram(scores, result.settings.threshold) if scores else "",
        notes=result.notes[:NOTES_SHOWN], more_notes=max(0, len(result.notes) - NOTES_SHOWN),
        limits={"table": TABLE_PAIRS, "detail": DETAIL_PAIRS},
        common_limit=result.settings.common_limit(len(result.documents)),
    )


def write_similarity_outputs(result: ClassSimilarity, out_dir: Path, links: Optional[dict] = None) -> SimilaritySummary:
    """similarity.csv, similarity.html and similarity.json in `out_dir` (the JSON last: the class report
    links the page only once its summary exists). `links`: extra links for the page (back to index.html)."""
    detailed = min(DETAIL_PAIRS, len(result.pairs))
    write_atomic(out_dir / CSV_NAME, similarity_csv(result))
    write_atomic(out_dir / HTML_NAME, render_similarity(result, links or {}))
    value = summary(result, detailed)
    write_atomic(out_dir / JSON_NAME, summary_json(value))
    return value
