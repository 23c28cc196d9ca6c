"""Failure clusters: a class's submissions grouped by how they fail.

Two submissions are in one cluster when they fail the same tests *in the same way*: each failed test's message
is reduced to a pattern (`message_pattern`: numbers, quoted names, paths and line numbers taken out, the error
type and the words kept) plus a coarse pattern of the values it reports (`value_pattern`: doubled, negated,
zeros, ...), and a submission's *signature* is the set of (problem, test, pattern) over its failed tests.
Submissions with the same signature form a cluster; every cluster of two or more is reported, with the
misconceptions named for every one of its members (none: a shared failure the catalogue does not name yet).

Pure functions on typed values (`Failures` in, `Cluster` out): the gradebook's read side
(graders.gradebook_api.failures) or a GradeResult (`failures_of`) makes the input; `batch` writes
DIR/clusters.json (`clusters_json`) and the class report shows them. Grouping is one pass with a dict, so a
class of 500 is clustered in well under a second (benchmarks/clusters.py).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from .results import GradeResult

#: clusters smaller than this are not reported (one submission failing its own way is not a shared failure)
MIN_MEMBERS = 2
#: characters of a message that are read (patterns of longer messages differ in their first part anyway)
MESSAGE_CHARS = 600
#: characters of the example message kept in a cluster
EXAMPLE_CHARS = 400


@dataclass(frozen=True)
class FailedTest:
    """One test a submission did not pass (a problem the grader failed on is left out: not the student's)."""

    problem: str
    #: the test's id in its problem.toml
    test: str
    #: the title shown to students
    title: str
    #: what the judge found (the text of the result)
    message: str

    @property
    def key(self) -> str:
        """`problem/test`: how clusters.json names the test."""
        return f"{self.problem}/{self.test}"


@dataclass(frozen=True)
class Failures:
    """What clustering reads of one submission."""

    name: str
    #: the misconceptions named for it (any problem)
    misconceptions: Tuple[str, ...] = ()
    #: its failed tests, in the problems' and the tests' declared order
    tests: Tuple[FailedTest, ...] = ()


@dataclass(frozen=True)
class Cluster:
    """Submissions that fail the same tests the same way."""

    #: stable id: a hash of the shared signature (the same failures get the same id in every run)
    id: str
    #: member names, sorted
    members: List[str]
    #: misconception ids named for every member, sorted (empty: no catalogued misconception explains it)
    misconceptions: List[str]
    #: the failed tests, in declared order
    tests: List[FailedTest]
    #: one representative message (the first failed test's, of the first member)
    example: str
    #: the first failed test's message pattern (what every member's message reduced to)
    pattern: str = ""
    #: how the first failed test's values are wrong (`value_pattern`: "scaled x2", ...), '' when it reports none
    values: str = ""

    @property
    def catalogued(self) -> bool:
        return bool(self.misconceptions)

    def to_json(self) -> Dict[str, object]:
        return {"cluster": self.id, "members": list(self.members), "misconceptions": list(self.misconceptions),
                "tests": [t.key for t in self.tests], "example": self.example}


Signature = FrozenSet[Tuple[str, str, str]]

# ------------------------------------------------------------------ patterns

_PATH = re.compile(r"""(?:[A-Za-z]:)?(?:/[\w.@+-]+)+/?|\b[\w.-]+(?:/[\w.-]+)*\.py\b""")
_QUOTED = re.compile(r"""'[^'\n]{0,80}'|"[^"\n]{0,80}\"""")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
_OBJECT = re.compile(r"<[^<>\n]{0,80} at #>")
_CALL = re.compile(r"\b[A-Za-z_]\w*\(\)")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])|\b(?:nan|inf|NaN|Infinity)\b")
_NUMBERS = re.compile(r"#(?:\s*,\s*(?:#|\.\.\.|…))+")
_HASHES = re.compile(r"#{2,}")
_SPACE = re.compile(r"\s+")
_GOT = re.compile(r"got\s+(\[[^\]]*\]|\S+?),?\s+expected\s+(\[[^\]]*\]|[^\s;,)]+)")


def message_pattern(message: str) -> str:
    """`message` with what differs between two submissions failing the same way taken out: paths (and the
    line numbers after them), memory addresses, quoted names, names of called functions and every number
    (lists of numbers become one `[#…]`). Error type names and the judge's words stay."""
    text = _SPACE.sub(" ", message[:MESSAGE_CHARS]).strip()
    text = _PATH.sub("<path>", text)
    text = _ADDRESS.sub("#", text)
    text = _OBJECT.sub("<object>", text)
    text = _QUOTED.sub("'<name>'", text)
    text = _CALL.sub("<name>()", text)
    text = _HASHES.sub("#", _NUMBER.sub("#", text))
    text = _NUMBERS.sub("#…", text)
    return text


def _floats(text: str) -> List[float]:
    found = []
    for token in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", text.strip("[]")):
        try:
            found.append(float(token))
        except ValueError:
            pass
    return found


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-9)


def value_pattern(message: str) -> str:
    """How the values a message reports (`got A, expected B`) are wrong, in a word: `non-finite`, `zeros`,
    `negated`, `scaled x<k>` (every value k times the expected one), `constant` (one value everywhere) or
    `wrong`; '' when the message reports no values."""
    match = _GOT.search(message[:MESSAGE_CHARS])
    if not match:
        return ""
    got, want = _floats(match.group(1)), _floats(match.group(2))
    n = min(len(got), len(want))
    if not n:
        return ""
    got, want = got[:n], want[:n]
    if not all(math.isfinite(g) for g in got):
        return "non-finite"
    if all(g == 0 for g in got):
        return "zeros"
    pairs = [(g, w) for g, w in zip(got, want) if w != 0]
    if pairs and all(g == 0 for g, w in zip(got, want) if w == 0):
        ratio = pairs[0][0] / pairs[0][1]
        if ratio != 0 and not _close(ratio, 1.0) and all(_close(g, ratio * w) for g, w in pairs):
            return "negated" if _close(ratio, -1.0) else f"scaled x{ratio:.3g}"
    if n > 1 and all(_close(g, got[0]) for g in got) and not all(_close(w, want[0]) for w in want):
        return "constant"
    return "wrong"


def failure_pattern(test: FailedTest) -> str:
    """The message pattern of one failed test, with its value pattern when it reports values."""
    values = value_pattern(test.message)
    pattern = message_pattern(test.message)
    return f"{pattern} [{values}]" if values else pattern


def signature(failures: Failures) -> Signature:
    """Which tests fail and how: {(problem, test, pattern)} (empty when nothing failed)."""
    return frozenset((t.problem, t.test, failure_pattern(t)) for t in failures.tests)


def signature_id(sig: Signature) -> str:
    """A short stable id of a signature (the same failures get the same id in every run and class)."""
    digest = hashlib.sha256("\n".join("\0".join(part) for part in sorted(sig)).encode("utf-8"))
    return "c-" + digest.hexdigest()[:10]


# ------------------------------------------------------------------ grouping


def cluster(submissions: Iterable[Failures], min_members: int = MIN_MEMBERS) -> List[Cluster]:
    """Group `submissions` by signature; every group of at least `min_members` that failed something.

    Order: the clusters without a misconception named for every member first (the failures nobody catalogued),
    then by size (largest first), then by id."""
    groups: Dict[Signature, List[Failures]] = {}
    for sub in submissions:
        if sub.tests:
            groups.setdefault(signature(sub), []).append(sub)
    found = [_cluster(sig, members) for sig, members in groups.items() if len(members) >= min_members]
    return sorted(found, key=lambda c: (c.catalogued, -len(c.members), c.id))


def _cluster(sig: Signature, members: Sequence[Failures]) -> Cluster:
    members = sorted(members, key=lambda m: m.name)
    shared = set(members[0].misconceptions)
    for m in members[1:]:
        shared &= set(m.misconceptions)
    first = members[0].tests[0]
    return Cluster(id=signature_id(sig), members=[m.name for m in members], misconceptions=sorted(shared),
                   tests=list(members[0].tests), example=_SPACE.sub(" ", first.message).strip()[:EXAMPLE_CHARS],
                   pattern=failure_pattern(first), values=value_pattern(first.message))


# ------------------------------------------------------------------ inputs and outputs


def failures_of(result: GradeResult, name: Optional[str] = None) -> Failures:
    """What clustering reads of a graded result (problems with a grader fault left out)."""
    tests = tuple(FailedTest(t.problem or p.id, t.id, t.name, t.message)
                  for p in result.problems if not p.fault for t in p.tests if not t.passed)
    return Failures(name or result.submission, tuple(result.misconceptions), tests)


def clusters_json(clusters: Sequence[Cluster]) -> str:
    """DIR/clusters.json: [{"cluster", "members", "misconceptions", "tests", "example"}, ...]."""
    return json.dumps([c.to_json() for c in clusters], indent=1, ensure_ascii=False) + "\n"

