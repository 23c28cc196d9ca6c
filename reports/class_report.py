"""The class report (DIR/index.html) and grades.csv, built from the gradebook alone."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional
from urllib.parse import quote

from graders import gradebook_api
from graders.clusters import Cluster, cluster, clusters_json
from graders.gradebook import Gradebook
from graders.gradebook_api import PassCount, grades_csv
from graders.record import write_atomic
from graders.similarity import load_summary

from .render import environment, explain

#: Submissions listed as examples of a misconception.
EXAMPLES = 5
#: Submissions listed as the slowest.
SLOWEST = 10
#: Similar pairs listed under the attention items (similarity.html lists more, similarity.csv all).
ATTENTION_PAIRS = 20
#: Lowest-scoring graded submissions listed under "Needs attention" (only those below half the maximum).
LOWEST = 10
#: Failure clusters shown of each kind (uncatalogued, catalogued); clusters.json lists every one.
CLUSTERS_SHOWN = 20
#: Members named per cluster (the rest counted).
CLUSTER_MEMBERS = 12
#: the failure clusters of the class, as data (graders.clusters.clusters_json)
CLUSTERS_FILE = "clusters.json"


@dataclass
class StudentLine:
    """One submission as the class report shows it."""

    name: str
    #: graded, error or fault (see graders.gradebook.STATUSES)
    status: str
    score: float
    max_score: float
    #: problem id -> score
    problems: Dict[str, float]
    #: wall-clock seconds grading took
    seconds: float
    #: the first issue (crash, missing file, fault), '' when it ran normally
    error: str
    #: link to its report relative to index.html; None when the file does not exist
    report: Optional[str]
    #: misconception ids found in it
    misconceptions: List[str] = field(default_factory=list)
    #: what a TA should look at (the integrity screen's lines and tests whose judges asked), empty when nothing
    review: List[str] = field(default_factory=list)


@dataclass
class AttentionLine:
    """A submission a TA should open first, and why."""

    student: StudentLine
    #: blank, error, fault or low (the order the list shows them in)
    kind: str
    #: the reason in a few words
    why: str


#: the order of the kinds in "Needs attention": a grader fault first (its grade is not known yet; regrade it)
ATTENTION_KINDS = ("fault", "blank", "error", "low")


def attention_line(student: StudentLine, lowest: List[StudentLine]) -> Optional[AttentionLine]:
    """Why `student` needs a TA's attention, None when it does not: nothing graded (blank, or nothing in it
    ran), the grading stopped on the submission (error) or on the grader (fault), or one of the `lowest`."""
    if student.status == "fault":
        return AttentionLine(student, "fault",
                             f"grader fault — regrade (rerun batch): {student.error or 'see its report'}")
    if student.status != "graded":
        return AttentionLine(student, "error", f"not graded: {student.error or student.status}")
    if student.score == 0:
        return AttentionLine(student, "blank", "0 points: blank, or nothing in it ran")
    if student in lowest:
        return AttentionLine(student, "low", f"one of the lowest scores: {student.score:g} / {student.max_score:g}")
    return None


@dataclass
class ProblemStats:
    """Score distribution of one problem over the class."""

    id: str
    title: str
    max_score: float
    scores: List[float]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0


@dataclass
class MisconceptionLine:
    """One misconception: how many submissions show it, and a few of them."""

    id: str
    title: str
    count: int
    examples: List[StudentLine]


@dataclass
class ClusterLine:
    """One failure cluster as the class report shows it: the cluster and its members' lines."""

    cluster: Cluster
    #: its members, in the cluster's order (a member with no line in the report is left out)
    members: List[StudentLine]

    @property
    def problems(self) -> List[str]:
        """The problems of its failed tests, each once, in order."""
        return list(dict.fromkeys(t.problem for t in self.cluster.tests))


@dataclass
class ClassView:
    """Everything index.html shows, computed from the gradebook."""

    students: List[StudentLine]
    problems: List[ProblemStats]
    tests: List[PassCount]
    misconceptions: List[MisconceptionLine]
    #: grader versions that produced the records
    grader_versions: List[str]
    #: ISO 8601 UTC time of rendering
    generated_at: str
    #: the similarity screening of the class (graders.similarity.SimilaritySummary), None when there is none
    similarity: Optional[Any] = None
    #: failure clusters (graders.clusters): the uncatalogued first, then by size
    clusters: List[ClusterLine] = field(default_factory=list)

    @property
    def scores(self) -> List[float]:
        """Total scores of the submissions graded (a grader fault's total is not a score: left out)."""
        return [s.score for s in self.students if s.status != "fault"]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0

    @property
    def max_score(self) -> float:
        """The most common maximum (every record has the same one unless problems changed)."""
        counts = Counter(s.max_score for s in self.students)
        return counts.most_common(1)[0][0] if counts else 0.0

    @property
    def status_counts(self) -> Dict[str, int]:
        return dict(Counter(s.status for s in self.students))

    @property
    def similar_pairs(self) -> List[Any]:
        """Pairs at or above the similarity threshold, as many as the attention items list."""
        return list(self.similarity.flagged[:ATTENTION_PAIRS]) if self.similarity else []

    @property
    def uncompared(self) -> List[Any]:
        """Submissions the similarity screening could not compare (listed, never passed as sharing nothing)."""
        return list(self.similarity.uncompared[:ATTENTION_PAIRS]) if self.similarity else []

    @property
    def for_review(self) -> List[StudentLine]:
        """Submissions whose files use what no solution needs and could reach the grader's measurements."""
        return [s for s in self.students if s.review]

    @property
    def needs_attention(self) -> List[AttentionLine]:
        """Faulted submissions (to regrade), blank and errored ones, then the lowest scores (below half the maximum)."""
        graded = [s for s in self.students if s.status == "graded" and 0 < s.score < s.max_score / 2]
        lowest = sorted(graded, key=lambda s: s.score)[:LOWEST]
        lines = [line for line in (attention_line(s, lowest) for s in self.students) if line is not None]
        return sorted(lines, key=lambda a: (ATTENTION_KINDS.index(a.kind), a.student.score, a.student.name))

    @property
    def uncatalogued_clusters(self) -> List[ClusterLine]:
        """Clusters with no misconception named for every member: shared failures nobody catalogued."""
        return [c for c in self.clusters if not c.cluster.catalogued]

    @property
    def catalogued_clusters(self) -> List[ClusterLine]:
        return [c for c in self.clusters if c.cluster.catalogued]

    @property
    def slowest(self) -> List[StudentLine]:
        return sorted(self.students, key=lambda s: -s.seconds)[:SLOWEST]


def report_link(out_dir: Path, name: str) -> Optional[str]:
    """`<name>/report.html`, URL-quoted, when that file exists."""
    try:
        present = (out_dir / name / "report.html").is_file()
    except OSError:  # e.g. a name too long for the file system: that student has no report, the class still does
        present = False
    return f"{quote(name)}/report.html" if present else None


def student_line(record: gradebook_api.SubmissionScores, out_dir: Path) -> StudentLine:
    """One submission's line: a faulted problem has no score (shown "—"), its first issue is its error."""
    row = record.row
    return StudentLine(row.name, row.status, row.score, row.max_score, record.problems, row.seconds,
                       row.error.splitlines()[0] if row.error else "", report_link(out_dir, row.name),
                       record.misconceptions, record.review)


def _students(book: Gradebook, out_dir: Path) -> List[StudentLine]:
    return [student_line(record, out_dir) for record in gradebook_api.submissions(book)]


def _problems(book: Gradebook) -> List[ProblemStats]:
    return [ProblemStats(p.id, p.title, p.max_score, p.scores) for p in gradebook_api.problems(book)]


def _misconceptions(students: List[StudentLine]) -> List[MisconceptionLine]:
    by_id: Dict[str, List[StudentLine]] = {}
    for s in students:
        for m in s.misconceptions:
            by_id.setdefault(m, []).append(s)
    lines = [MisconceptionLine(m, explain(m).title, len(who), who[:EXAMPLES]) for m, who in by_id.items()]
    return sorted(lines, key=lambda m: (-m.count, m.id))


def cluster_lines(clusters: List[Cluster], students: List[StudentLine]) -> List[ClusterLine]:
    by_name = {s.name: s for s in students}
    return [ClusterLine(c, [by_name[m] for m in c.members if m in by_name]) for c in clusters]


def class_view(book: Gradebook, out_dir: Path) -> ClassView:
    """The class report's content, from the gradebook rows of `out_dir` (and its similarity.json, if any)."""
    students = _students(book, out_dir)
    return ClassView(
        students=students, problems=_problems(book), tests=gradebook_api.tests(book),
        misconceptions=_misconceptions(students), grader_versions=gradebook_api.grader_versions(book),
        generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), similarity=load_summary(out_dir),
        clusters=cluster_lines(cluster(gradebook_api.failures(book)), students),
    )


def _figures(view: ClassView) -> Dict[str, str]:
    from .class_figures import problem_distributions, score_histogram

    if not view.students:
        return {}
    figures = {"histogram": score_histogram(view.scores, view.max_score)}
    if view.problems:
        figures["problems"] = problem_distributions([(p.id, p.scores, p.max_score) for p in view.problems])
    return figures


def render_class(view: ClassView) -> str:
    """index.html: self-contained (figures inline, no external resource)."""
    return environment().get_template("class.html").render(view=view, figures=_figures(view),
                                                           clusters_shown=CLUSTERS_SHOWN,
                                                           cluster_members=CLUSTER_MEMBERS)


def write_class_outputs(out_dir: Path, book: Gradebook) -> ClassView:
    """DIR/index.html, DIR/grades.csv and DIR/clusters.json from the gradebook, each written atomically."""
    view = class_view(book, out_dir)
    write_atomic(out_dir / "grades.csv", grades_csv(book))
    write_atomic(out_dir / CLUSTERS_FILE, clusters_json([c.cluster for c in view.clusters]))
    write_atomic(out_dir / "index.html", render_class(view))
    return view
