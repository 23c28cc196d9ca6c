"""Failure clustering of a synthetic class: what it adds to `autograde batch`.

    python benchmarks/clusters.py [--size 500] [--seed 0] [--rounds 5]

Builds `--size` graded results by hand (no grading): the offering's tests, and per student one of a few dozen
ways of failing (a set of tests failing with a message of its own: wrong values with a value pattern, crashes
naming the student's own line numbers, names and paths, timeouts), its numbers drawn per student so that only
the normalisation can bring two together; a third of the class passes everything. Prints the best of
`--rounds` times of

* clustering alone: `failures_of` + `cluster` on the 500 results (the pure functions);
* what batch adds: the same read from a gradebook holding the 500 records (`gradebook_api.failures`), clustered,
  and clusters.json serialised; the report's section is drawn by the class report's render, timed with and
  without clusters.

The goal: at most 5 s added to `batch` for a class of 500.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders import gradebook_api  # noqa: E402
from graders.clusters import cluster, clusters_json, failures_of  # noqa: E402
from graders.gradebook import Gradebook, GradedSubmission  # noqa: E402
from graders.offering import get_offering, offering_problems  # noqa: E402
from graders.results import GradeResult, ProblemResult, TestResult  # noqa: E402

Message = Callable[[random.Random], str]


def _values(rng: random.Random, n: int) -> List[float]:
    return [round(rng.uniform(-50, 50), 6) for _ in range(n)]


def _show(values: List[float]) -> str:
    shown = ", ".join(f"{v:g}" for v in values[:6])
    return f"[{shown}{', ...' if len(values) > 6 else ''}]"


def wrong_values(scale: Optional[float]) -> Message:
    """Values `scale` times the expected ones (None: unrelated values)."""

    def make(rng: random.Random) -> str:
        want = _values(rng, rng.choice([2, 4, 8]))
        got = _values(rng, len(want)) if scale is None else [w * scale for w in want]
        return (f"value: got {_show(got)}, expected {_show(want)} (entry 0: {got[0]} vs {want[0]}; "
                "rtol=1e-09, atol=1e-12)")
    return make


def crash(kind: str, text: str) -> Message:
    def make(rng: random.Random) -> str:
        name = rng.choice(["node", "v", "var", "parent", "x1", "scalar_thing", "grads"])
        line = rng.randint(20, 400)
        path = rng.choice(["minitorch/autodiff.py", "/tmp/ws/sub/minitorch/autodiff.py", "project/run_sentiment.py"])
        return f"{kind}: {text.format(name=name)} ({path}:{line})"
    return make


def accuracy(rng: random.Random) -> str:
    return f"held-out accuracy {rng.uniform(40, 74):.1f}% after {rng.randint(3, 10)} epochs (target 75%)"


def timeout(rng: random.Random) -> str:
    return f"the probe did not finish within {rng.randint(10, 60)} s of CPU time (killed)"


MODES: List[Message] = [
    wrong_values(2.0), wrong_values(-1.0), wrong_values(0.5), wrong_values(0.0), wrong_values(None),
    crash("KeyError", "'{name}'"), crash("AttributeError", "'Scalar' object has no attribute '{name}'"),
    crash("TypeError", "{name}() takes 2 positional arguments but 3 were given"),
    crash("RecursionError", "maximum recursion depth exceeded"), crash("AssertionError", "chain_rule called on a leaf"),
    crash("NameError", "name '{name}' is not defined"), crash("ZeroDivisionError", "float division by zero"),
    accuracy, timeout,
]


def synthetic_class(size: int, seed: int) -> List[GradeResult]:
    """`size` results over the default offering's tests; see the module's docstring."""
    rng = random.Random(seed)
    specs = offering_problems(get_offering(None))
    tests = [(s.id, s.title, t.id, t.name, t.kind, float(t.points)) for s in specs for t in s.tests]
    # ways of failing: a mode on a random subset of tests (some with a second mode on other tests)
    ways: List[List[Tuple[int, Message]]] = []
    for _ in range(40):
        chosen = rng.sample(range(len(tests)), rng.randint(1, 12))
        modes = [rng.choice(MODES) for _ in range(2)]
        ways.append([(i, modes[k % 2 if rng.random() < 0.3 else 0]) for k, i in enumerate(chosen)])
    results = []
    for n in range(size):
        failing = {} if rng.random() < 0.33 else dict(rng.choice(ways))
        problems = {}
        for index, (pid, title, tid, name, kind, points) in enumerate(tests):
            message = failing[index](rng) if index in failing else "right"
            score = 0.0 if index in failing else points
            problem = problems.setdefault(pid, ProblemResult(pid, title, []))
            problem.tests.append(TestResult(pid, tid, name, kind, points, score, message))
        results.append(GradeResult(submission=f"student{n:04d}", problems=list(problems.values())))
    return results


def best_of(rounds: int, work: Callable[[], object]) -> Tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        value = work()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    results = synthetic_class(args.size, args.seed)
    failed = sum(1 for r in results for p in r.problems for t in p.tests if not t.passed)
    print(f"class of {len(results)} synthetic results, {failed} failed tests in all")

    seconds, found = best_of(args.rounds, lambda: cluster([failures_of(r) for r in results]))
    clusters = list(found)  # type: ignore[call-overload]
    members = sum(len(c.members) for c in clusters)
    print(f"clustering alone (failures_of + cluster): {seconds * 1000:.1f} ms "
          f"-> {len(clusters)} clusters of {members} submissions")

    from reports.class_report import ClassView, cluster_lines, render_class

    with tempfile.TemporaryDirectory() as tmp:
        with Gradebook(Path(tmp) / "gradebook.sqlite") as book:
            for r in results:
                book.record(GradedSubmission(name=r.submission, source="", content_hash="h", problems="all",
                                             seed=0, grader_version="v", result=r))
            read, _ = best_of(args.rounds, lambda: clusters_json(cluster(gradebook_api.failures(book))))
            print(f"from the gradebook (failures + cluster + clusters.json): {read * 1000:.1f} ms")
            students = _students(book)
    view = ClassView(students=students, problems=[], tests=[], misconceptions=[], grader_versions=["x"],
                     generated_at="now")
    render_class(view)  # templates compiled, figures' fonts loaded: not clustering's cost
    plain, _ = best_of(args.rounds, lambda: render_class(view))
    view.clusters = cluster_lines(clusters, students)
    drawn, _ = best_of(args.rounds, lambda: render_class(view))
    print(f"class report with the cluster section: {drawn * 1000:.1f} ms (without: {plain * 1000:.1f} ms)")
    added = read + max(0.0, drawn - plain)
    print(f"added to batch for {len(results)} submissions: {added:.3f} s (goal: at most 5 s)")


def _students(book: Gradebook) -> list:
    from reports.class_report import student_line

    return [student_line(record, Path("/nonexistent")) for record in gradebook_api.submissions(book)]


if __name__ == "__main__":
    main()
