"""Hostile submissions against static_graph's evidence of how a run works (issue 21, class 2).

The lazy-evaluation probes (slides_graph, unfed_placeholder, only_needed, feed_cuts) run in the trusted
process: the student's `Session.run` runs in the student's process on a copy of the graph built there, and
every `Session._evaluate` (and op kernel) it calls is answered and recorded in the trusted process. Attacks
are snippets in tests/files/hostile/probe_*.py appended to a base:

* `probe_forget_evaluations` on a run that re-evaluates shared nodes (`static_graph/buggy/one_fetch_at_a_time`):
  after each run, deletes that run's repeats from every record of evaluations its process can reach (any
  `evaluations` list the garbage collector knows: the old probe's watch) and from `last_run_evaluated`. On the
  old design it scored 3/3 on only_needed; it must score exactly what its honest twin (the base) scores and be
  named the same misconception;
* `probe_own_kernels` on the reference: evaluates every node with its own file's kernels instead of the given
  `_evaluate` (nothing reaches the record): its runs are told their values did not come from `_evaluate`;
* `probe_hide_depth_graph` on a recursive evaluation (`static_graph/buggy/recursive_evaluation`): writes
  `node.inputs.watch.watch_depth = False` on every node (the old probe's depth switch) and raises the limit with
  the interpreter's own setter: the deep chain still shows the recursion (the depth watch is the probes' own
  module state), as on its twin;
* (the red team's) `probe_infinite_value` asks `_evaluate` for a value that is infinite (once crashed the trusted
  process and desynchronised the pipe), and `probe_threaded_levels` is a right run evaluating in a thread pool
  (its requests once raced on the pipe and deadlocked): the twin's scores, and full marks.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import hostile_kit as k
from cases import case_named
from cases import graded as graded_case
from graders.grade import GradeOptions, grade_submission

TF = "minitorch/mini_tf.py"
#: the probes whose evaluations are recorded in the trusted process
LAZY = ("slides_graph", "unfed_placeholder", "only_needed", "feed_cuts")
#: the honest twin of the forgetting attack: a run that re-evaluates shared nodes
TWIN = "static_graph/buggy/one_fetch_at_a_time"
#: the honest twin of the depth attack: a memoised recursive evaluation
RECURSIVE = "static_graph/buggy/recursive_evaluation"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """{name: the static_graph ProblemResult}: the twins (their problem's own cases, graded once for the run),
    the attacks on them, and the reference evaluating with its own kernels."""
    tmp = tmp_path_factory.mktemp("evaluations")
    files = {
        "forget": k.compose(k.source(TWIN, TF), TF, "probe_forget_evaluations", when="none"),
        "own_kernels": k.compose(k.source("reference", TF), TF, "probe_own_kernels", when="none"),
        "hide_depth": k.compose(k.source(RECURSIVE, TF), TF, "probe_hide_depth_graph", when="none"),
        "infinite": k.compose(k.source(TWIN, TF), TF, "probe_infinite_value", when="none"),
        "threads": k.compose(k.source("reference", TF), TF, "probe_threaded_levels", when="none"),
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        options = GradeOptions(offering="all", problems=["static_graph"], jobs=1)
        futures = {name: pool.submit(grade_submission, k.build(tmp / name, {TF: text}), options)
                   for name, text in files.items()}
        twins = {"twin": graded_case(case_named(TWIN)), "recursive": graded_case(case_named(RECURSIVE))}
        out = {name: k.problem(f.result(), "static_graph") for name, f in futures.items()}
    return {**out, **twins}


def _lazy(p):
    return {t.id: t for t in p.tests if t.id in LAZY}


def test_the_twin_loses_the_shared_node_points(graded):
    twin = _lazy(graded["twin"])
    assert twin["only_needed"].score < twin["only_needed"].max_score
    assert twin["only_needed"].misconception == "reevaluates-shared-nodes"


def test_deleting_repeats_from_every_reachable_record_changes_nothing(graded):
    """The forgetting attack scores what its twin scores, test by test, and is named the same misconception;
    the message still counts the repeated evaluation."""
    attack, twin = graded["forget"], graded["twin"]
    assert k.scores(attack) == k.scores(twin)
    assert attack.score == pytest.approx(twin.score, abs=1e-9)
    only = _lazy(attack)["only_needed"]
    assert only.misconception == "reevaluates-shared-nodes"
    assert "node 'a' was evaluated 2 times" in only.message


def test_values_computed_outside_evaluate_earn_no_lazy_points(graded):
    """The reference's run on its own kernels: right values, but none came from the given `_evaluate`: every
    lazy test whose runs compute something fails, saying where such values appeared."""
    lazy = _lazy(graded["own_kernels"])
    for test_id in ("slides_graph", "only_needed", "feed_cuts"):
        assert lazy[test_id].score == 0, (test_id, lazy[test_id].message)
        assert "Session._evaluate did not compute" in lazy[test_id].message
    assert lazy["unfed_placeholder"].score < lazy["unfed_placeholder"].max_score


def test_switching_the_depth_watch_off_and_raising_the_limit_keeps_no_recursion_points(graded):
    attack, twin = graded["hide_depth"], graded["recursive"]
    deep = {t.id: t for t in twin.tests}["deep_chain"]
    assert deep.score == 0 and deep.misconception == "recursion-limit", deep.message
    deep = {t.id: t for t in attack.tests}["deep_chain"]
    assert deep.score == 0 and deep.misconception == "recursion-limit", deep.message
    assert k.scores(attack) == k.scores(twin)


def test_an_infinite_value_crosses_the_pipe_and_costs_only_what_the_twin_loses(graded):
    attack, twin = graded["infinite"], graded["twin"]
    assert attack.fault is None, attack.fault
    assert k.scores(attack) == k.scores(twin), [(t.id, t.message[:160]) for t in attack.tests if not t.passed]
    assert set(attack.misconceptions) == set(twin.misconceptions)
    assert "ProtocolError" not in k.text_of(attack) and "Out of range" not in k.text_of(attack)


def test_a_right_run_evaluating_in_threads_keeps_the_lazy_points(graded):
    """Its requests take turns on the pipe; its `last_run_evaluated` (in the order its levels were listed, not the
    order its threads' requests arrived) names the same nodes, each after its inputs. (Its deep chain is its own
    business: a level scan over every node left is quadratic on 5000 nodes, and the work budget says so.)"""
    p = graded["threads"]
    assert p.fault is None, p.fault
    assert all(t.score == t.max_score for t in p.tests if t.id in LAZY), [(t.id, t.message[:200]) for t in p.tests]
