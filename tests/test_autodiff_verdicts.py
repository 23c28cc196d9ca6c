"""Autodiff verdicts a TA would give: points and misconception labels only on evidence about THIS submission.

The judges' rules on hand-made probe data (fast, one rule per test), and the instrumented nodes compared
with the framework's own Scalars and Tensors. Whole submissions, among them course-style ones (the
starter's `autodiff.py` shape, `# BEGIN ASSIGN2_1` blocks), are the problem's own cases
(problems/autodiff/valid/, problems/autodiff/buggy/), graded with their exact verdicts in
test_problem_cases.py.
"""

import itertools
import random
import sys

import numpy as np
import pytest

from conftest import ROOT
from graders.baseline import problem_hooks
from graders.judge import same_outcome
from graders.probe import probe_sources
from graders.results import ProbeOutcome
from graders.spec import load_problems

#: the autodiff problem's own judges (problems/autodiff/judges.py)
_AUTODIFF = problem_hooks(next(p for p in load_problems() if p.id == "autodiff"))
linear_work, time_ratio, work_growth = _AUTODIFF.linear_work, _AUTODIFF.time_ratio, _AUTODIFF.work_growth


# --------------------------------------------------------------- rules on hand-made data


def _judges():
    import importlib.util

    spec = importlib.util.spec_from_file_location("autodiff_judges_under_test", ROOT / "problems" / "autodiff" / "judges.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


J = _judges()

#: a small DAG: 0, 1 leaves; 2 = f(0); 3 = g(1, 5) with 5 a constant; 4 = h(2, 3) is the output
EDGES = [[], [], [0], [1, 5], [2, 3], []]
CONSTANTS = [5]


def _all_valid_orders():
    """Every reverse topological order of EDGES' non-constant nodes, by brute force."""
    nodes = [0, 1, 2, 3, 4]
    valid = []
    for order in itertools.permutations(nodes):
        pos = {v: i for i, v in enumerate(order)}
        if all(pos[v] < pos[p] for v in nodes for p in EDGES[v] if p not in CONSTANTS):
            valid.append(list(order))
    return valid


def test_every_valid_reverse_topological_order_passes_and_nothing_else():
    valid = _all_valid_orders()
    assert len(valid) == 6  # the course's DFS order [4, 2, 0, 3, 1] is one of them, Kahn's [4, 2, 3, 0, 1] another
    assert [4, 2, 0, 3, 1] in valid and [4, 2, 3, 0, 1] in valid
    for order in itertools.permutations([0, 1, 2, 3, 4]):
        finding = J.judge_order(list(order), EDGES, CONSTANTS, 4)
        assert (finding.problem is None) == (list(order) in valid), order


def test_an_order_with_the_output_last_is_order_not_reversed():
    for order in _all_valid_orders():
        finding = J.judge_order(order[::-1], EDGES, CONSTANTS, 4)
        assert finding.misconception == "order-not-reversed", order
        assert "output first" in finding.problem


def test_a_mixed_order_is_not_topological():
    finding = J.judge_order([4, 0, 2, 3, 1], EDGES, CONSTANTS, 4)  # 0 before its user 2
    assert finding.misconception == "not-topological"


def test_a_valid_order_with_constants_is_constant_not_skipped_and_incomplete_orders_name_nothing():
    assert J.judge_order([4, 3, 5, 2, 1, 0], EDGES, CONSTANTS, 4).misconception == "constant-not-skipped"
    for order in ([4, 3, 2, 1], [4, 3, 2, 2, 1, 0], [4, 3, 2, 1, 0, -1], [4, 3, 2, 1, 0, 6]):
        finding = J.judge_order(order, EDGES, CONSTANTS, 4)
        assert finding.problem and finding.misconception is None, order


def _outcome(value, probe="p", marks=None):
    return ProbeOutcome(probe=probe, status="ok", value=value, marks=marks)


def _error(kind="AttributeError", probe="p"):
    return ProbeOutcome(probe=probe, status="error", error_type=kind, error_message="boom")


def _plain_judge(student, reference, options):  # a judge without a view
    raise AssertionError("not called")


def test_a_shared_exception_type_is_no_evidence():
    assert not same_outcome(_plain_judge, _error(), _error(), {})
    assert not same_outcome(_plain_judge, _error("RecursionError"), _error("RecursionError"), {})


def test_missing_or_zero_values_are_no_evidence_but_reproduced_numbers_are():
    reference = _outcome({"leaves": [1.5, -2.0], "edges": [[1, 2], [0]]})
    nothing = _outcome({"leaves": [None, None], "edges": [[1, 2], [0]]})
    zeros = _outcome({"leaves": [0.0, 0.0], "edges": [[1, 2], [0]]})
    assert not same_outcome(_plain_judge, nothing, nothing, {}, reference)  # the shared edges are no evidence
    assert not same_outcome(_plain_judge, zeros, zeros, {}, reference)
    wrong = _outcome({"leaves": [1.25, -2.0], "edges": [[1, 2], [0]]})
    assert same_outcome(_plain_judge, wrong, wrong, {}, reference)
    assert not same_outcome(_plain_judge, _outcome({"leaves": [1.3, -2.0], "edges": [[1, 2], [0]]}), wrong, {}, reference)


def _fan_out_reference():
    """The reference's fan-out data: a -> x (#1) -> users -> out, contributions per user."""
    return [
        {"dx": 4.25, "calls": [[4, 1.0], [3, 0.25], [2, 1.75], [1, 4.25]], "edges": [[], [0], [1], [1], [2, 3]],
         "output": 4, "x": 1, "contributions": [3.5, 0.75]},
        {"dx": 6.75, "calls": [[5, 1.0], [4, 0.5], [3, 0.25], [2, 1.75], [1, 6.75]],
         "edges": [[], [0], [1], [1], [1], [2, 3, 4]], "output": 5, "x": 1, "contributions": [3.5, 0.75, 2.5]},
    ]


def _fan_out(student_calls, dx):
    ref = _fan_out_reference()
    student = [{**r, "calls": c, "dx": d} for r, c, d in zip(ref, student_calls, dx)]
    return J.fan_out(_outcome(student), _outcome(ref), {})


def test_fan_out_overwrite_needs_a_single_contribution_on_every_graph():
    overwrite = _fan_out([[[4, 1.0], [2, 1.75], [3, 0.25], [1, 0.75]], [[5, 1.0], [2, 1.75], [3, 0.25], [4, 0.5], [1, 2.5]]],
                         [0.75, 2.5])
    assert overwrite.misconception == "no-fanout-accumulation"
    assert _fan_out([[[4, 1.0], [2, 1.75], [3, 0.25], [1, 0.75]], _fan_out_reference()[1]["calls"]],
                    [0.75, 6.75]).misconception is None  # one graph alone is no evidence
    unchained = _fan_out([[[4, 1.0], [2, 1.0], [3, 1.0], [1, 2.0]], [[5, 1.0], [2, 1.0], [3, 1.0], [4, 1.0], [1, 3.0]]],
                         [2.0, 3.0])  # the local derivatives dropped: wrong, but not an overwrite
    assert unchained.fraction == 0 and unchained.misconception is None


def test_fan_out_first_touch_is_not_topological_and_output_last_is_order_not_reversed():
    first_touch = _fan_out([[[4, 1.0], [3, 0.25], [1, 0.75], [2, 1.75]], [[5, 1.0], [4, 0.5], [1, 2.5], [3, 0.25], [2, 1.75]]],
                           [0.75, 2.5])
    assert first_touch.misconception == "not-topological"
    inputs_first = _fan_out([[[1, 0.0], [2, 0.0], [3, 0.0], [4, 1.0]], [[1, 0.0], [2, 0.0], [3, 0.0], [4, 0.0], [5, 1.0]]],
                            [0.0, 0.0])
    assert inputs_first.misconception == "order-not-reversed"


def test_seed_ignored_needs_the_unit_seed_values_not_zeros():
    reference = _outcome([2.5, -5.0, 0.0])
    assert J.seed_scaled(_outcome([1.0, -2.0, 0.0]), reference, {"seed": 2.5}).misconception == "seed-derivative-ignored"
    for nothing in ([0.0, 0.0, 0.0], [None, None, None]):
        verdict = J.seed_scaled(_outcome(nothing), reference, {"seed": 2.5})
        assert verdict.fraction == 0 and verdict.misconception is None


def _timing(derivatives, seconds=(0.01, 0.02, 0.04), again=(0.02, 0.04), more=(), more_derivatives=None,
            sweeps=None):
    """Timing probe data with parent marks that give the listed best times; `more`: (8000, 16000) pairs of
    best times of the extra rounds; `sweeps`: {size: the grader's linear pass's time there} (none: no pass)."""
    rows, marks, clock = [], {}, 0.0
    extra = [(f"more{r}n{8000 * 2 ** i}", 8000 * 2 ** i, sec, more_derivatives or derivatives)
             for r, pair in enumerate(more) for i, sec in enumerate(pair)]
    for tag, n, sec, ders in [(f"n{4000 * 2 ** i}", 4000 * 2 ** i, s, derivatives) for i, s in enumerate(seconds)] + \
            [(f"again{8000 * 2 ** i}", 8000 * 2 ** i, s, derivatives) for i, s in enumerate(again)] + extra:
        for run in range(3):
            marks[f"{tag}:{run}:start"], marks[f"{tag}:{run}:end"] = clock, clock + sec
            clock += sec + 1
        rows.append({"nodes": n + 1, "seconds": sec, "runs": [sec] * 3, "tag": tag, "derivatives": [ders] * 3,
                     **({"sweep": sweeps[n]} if sweeps else {})})
    return _outcome({"rows": rows[:3], "again": rows[3:5], "more": rows[5:]}, marks=marks)


def test_a_ratio_pushed_over_the_bound_by_load_is_measured_again_and_passes():
    """Load made the largest pair look quadratic (0.02 -> 0.07, then 0.021 -> 0.066); the extra rounds found
    runs undisturbed at both sizes: the best time per size gives 2.05, and the verdict passes."""
    reference = _timing([0.5, -1.25])
    loaded = _timing([0.5, -1.25], seconds=(0.01, 0.02, 0.07), again=(0.021, 0.066), more=[(0.03, 0.05), (0.02, 0.041)])
    verdict = time_ratio(loaded, reference, {"max_ratio": 3.0})
    assert verdict.fraction == 1.0 and "2.05" in verdict.message, verdict.message
    without_more = _timing([0.5, -1.25], seconds=(0.01, 0.02, 0.07), again=(0.021, 0.066))
    assert time_ratio(without_more, reference, {"max_ratio": 3.0}).misconception == "quadratic-traversal"


def test_a_quadratic_ratio_stays_quadratic_over_every_round():
    reference = _timing([0.5, -1.25])
    quadratic = _timing([0.5, -1.25], seconds=(0.01, 0.04, 0.16), again=(0.04, 0.15), more=[(0.041, 0.16)] * 4)
    verdict = time_ratio(quadratic, reference, {"max_ratio": 3.0})
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal" and "3.75" in verdict.message


def test_a_ratio_over_the_bound_passes_when_the_graders_linear_pass_grew_alike():
    """Load (or the cache) made a linear solution's largest pair 3.4 (over 3.3); the grader's own linear pass over
    the same graphs grew 2.35 there: the time grew 1.45x as fast as linear work, which passes. The same ratio
    beside a pass that doubled (2.0: 1.7x as fast as linear work) is quadratic."""
    reference = _timing([0.5, -1.25])
    options = {"max_ratio": 3.3, "max_growth": 1.45}
    alike = _timing([0.5, -1.25], seconds=(0.01, 0.02, 0.068), again=(0.02, 0.068),
                    sweeps={4000: 0.004, 8000: 0.008, 16000: 0.0188})
    verdict = time_ratio(alike, reference, options)
    assert verdict.fraction == 1.0 and "3.40" in verdict.message and "1.45x as fast" in verdict.message, verdict.message
    doubled = _timing([0.5, -1.25], seconds=(0.01, 0.02, 0.068), again=(0.02, 0.068),
                      sweeps={4000: 0.004, 8000: 0.008, 16000: 0.016})
    verdict = time_ratio(doubled, reference, options)
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal", verdict.message


def _skipped_again(timing):
    """The timing data as the trusted probe returns it when it found the largest pair clearly linear (a student's
    run): no again rows, `again_skipped`."""
    value = dict(timing.value)
    value.update(again=[], more=[], again_skipped=True)
    return _outcome(value, marks=timing.marks)


def test_a_largest_pair_the_probe_found_linear_is_not_measured_again_and_passes():
    """The probe measured no again rows (`again_skipped`): judged on the first rows alone, not 'stopped early'.
    Without the flag the same rows stopped early; the flag rescues no quadratic pair (the judge's bounds stand)."""
    reference = _timing([0.5, -1.25])
    options = {"max_ratio": 3.3, "max_growth": 1.45}
    sweeps = {4000: 0.004, 8000: 0.008, 16000: 0.016}
    linear = _skipped_again(_timing([0.5, -1.25], seconds=(0.01, 0.02, 0.044), sweeps=sweeps))
    verdict = time_ratio(linear, reference, options)
    assert verdict.fraction == 1.0 and "best of 6 runs of the largest pair: 2.20" in verdict.message, verdict.message
    unflagged = dict(linear.value, again_skipped=False)
    verdict = time_ratio(_outcome(unflagged, marks=linear.marks), reference, options)
    assert verdict.fraction == 0 and "stopped early" in verdict.message, verdict.message
    quadratic = _skipped_again(_timing([0.5, -1.25], seconds=(0.01, 0.04, 0.16), sweeps=sweeps))
    verdict = time_ratio(quadratic, reference, options)
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal", verdict.message


def test_mutant_matching_compares_the_first_rows_whether_or_not_the_again_rows_were_measured():
    """A mutant's cached run and a student's with the same bug may differ in whether their again rows were measured
    (each run's own timing decides): what matching compares is the same for both."""
    measured = _timing([0.5, -1.25])
    assert J._timed_derivatives(measured.value) == J._timed_derivatives(_skipped_again(measured).value)
    assert J._timed_derivatives(measured.value) == [[[0.5, -1.25]] * 3] * 3


def test_a_pass_slowed_at_the_largest_size_excuses_no_quadratic():
    """A quadratic pair (4.0) beside a pass that grew 3.5 (the machine, or a cache thrashed on purpose while the
    grader's pass ran): the pass's ratio excuses at most MAX_SWEEP_RATIO (2.4), 4.0 / 2.4 = 1.67 > 1.45."""
    reference = _timing([0.5, -1.25])
    quadratic = _timing([0.5, -1.25], seconds=(0.01, 0.04, 0.16), again=(0.04, 0.16),
                        sweeps={4000: 0.004, 8000: 0.008, 16000: 0.028})
    verdict = time_ratio(quadratic, reference, {"max_ratio": 3.3, "max_growth": 1.45})
    assert J.MAX_SWEEP_RATIO == 2.4
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal", verdict.message


def test_a_padded_middle_size_is_named_quadratic_by_how_the_multiple_of_the_pass_grows():
    """A quadratic of small constant, busy-waiting at the middle size only (8000 nodes: 19x the grader's linear pass,
    over the 12x bound) so that the largest pair looks linear: at 16000 nodes it took 5.6x on a busy machine (under
    half the bound), but 3x at 4000. The multiple grew 1.8x as the graph grew 4x: quadratic, named. A quadratic
    padded to the same time at every size (79x, 40x, 10x: the multiple shrinks) is still 10x linear work at the
    largest size: named. A linear traversal padded at the middle size only (3x, 19x, 3x) loses the points the same
    way, and is named nothing: no size but the padded one is far from linear work."""
    reference = _timing([0.5, -1.25])
    options = {"max_ratio": 3.3, "max_growth": 1.45, "max_slowdown": 12}
    sweeps = {4000: 0.004, 8000: 0.008, 16000: 0.016}
    padded = _skipped_again(_timing([0.5, -1.25], seconds=(0.012, 0.152, 0.0896), sweeps=sweeps))
    verdict = time_ratio(padded, reference, options)
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal", verdict.message
    assert "grew from 3x at 4001 nodes to 6x at 16001" in verdict.message, verdict.message
    evenly = _skipped_again(_timing([0.5, -1.25], seconds=(0.316, 0.32, 0.16), sweeps=sweeps))
    verdict = time_ratio(evenly, reference, options)
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal", verdict.message
    linear = _skipped_again(_timing([0.5, -1.25], seconds=(0.012, 0.152, 0.048), sweeps=sweeps))
    verdict = time_ratio(linear, reference, options)
    assert verdict.fraction == 0 and verdict.misconception is None and "spent evenly" in verdict.message, verdict.message


def test_a_linear_traversal_slow_at_every_size_is_told_so_and_read_by_a_ta():
    """Linear work with a costly step per node: 14x the grader's linear pass at every size, time doubling with the
    graph (2.0, 2.0). Over the 12x bound it loses the points (padding that grows with the graph looks the same) but
    is not named quadratic, is told its time grows like the graph, and asks a TA to read it; a quadratic of the
    same largest time (its multiple grows) is still named, with no review."""
    reference = _timing([0.5, -1.25])
    options = {"max_ratio": 3.3, "max_growth": 1.45, "max_slowdown": 12}
    sweeps = {4000: 0.004, 8000: 0.008, 16000: 0.016}
    slow = _skipped_again(_timing([0.5, -1.25], seconds=(0.056, 0.112, 0.224), sweeps=sweeps))
    verdict = time_ratio(slow, reference, options)
    assert verdict.fraction == 0 and verdict.misconception is None, verdict.message
    assert "the time grows like the graph" in verdict.message and "14x" in verdict.message, verdict.message
    assert verdict.review and "slow linear traversal" in verdict.review
    quadratic = _skipped_again(_timing([0.5, -1.25], seconds=(0.014, 0.056, 0.224), sweeps=sweeps))
    verdict = time_ratio(quadratic, reference, options)
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal" and verdict.review is None


def test_a_timing_stopped_early_is_named_by_how_the_multiple_of_the_pass_grew():
    """A quadratic padded at the middle size stops early at 16000 nodes on a busy machine (0.8 s): its last ratio
    (2.67) looks linear, the first (25) is the padding's; its time over the grader's pass grew from 3x to 27x:
    quadratic, named (it was named nothing). So is one padded evenly (CI failure of autodiff/buggy/quadratic_padded
    on a slow machine)."""
    reference = _timing([0.5, -1.25])
    stopped = _timing([0.5, -1.25], seconds=(0.012, 0.3, 0.8), again=(),
                      sweeps={4000: 0.004, 8000: 0.008, 16000: 0.03})
    verdict = time_ratio(stopped, reference, {"max_ratio": 3.3, "max_growth": 1.45})
    assert verdict.fraction == 0 and "stopped early" in verdict.message, verdict.message
    assert verdict.misconception == "quadratic-traversal", verdict.message
    # padded evenly (0.5 s a run), stopped at 16000 nodes on a slow machine (0.8 s: ratios 1.0, 1.6): 27x the pass
    # at the largest size, over half the bound, as the same times that did not stop are named
    evenly = _timing([0.5, -1.25], seconds=(0.5, 0.5, 0.8), again=(), sweeps={4000: 0.004, 8000: 0.008, 16000: 0.03})
    verdict = time_ratio(evenly, reference, {"max_ratio": 3.3, "max_growth": 1.45})
    assert verdict.fraction == 0 and verdict.misconception == "quadratic-traversal", verdict.message
    assert "27x the time of the grader's own linear pass" in verdict.message, verdict.message


def test_a_quadratic_verdict_beside_a_disturbed_pass_says_a_regrade_may_differ():
    """The grader's own linear pass grew 1.5x when the graph doubled (linear work: 2): the machine disturbed the
    measurement; the verdict stands (the growth is 2.37x as fast as the pass's) and says a regrade may differ.
    Beside a pass that doubled it says nothing of the kind."""
    reference = _timing([0.5, -1.25])
    options = {"max_ratio": 3.3, "max_growth": 1.45}
    disturbed = _timing([0.5, -1.25], seconds=(0.01, 0.02, 0.071), again=(0.02, 0.071),
                        sweeps={4000: 0.004, 8000: 0.008, 16000: 0.012})
    verdict = time_ratio(disturbed, reference, options)
    assert verdict.fraction == 0 and "regrade on a quieter one may differ" in verdict.message, verdict.message
    doubled = _timing([0.5, -1.25], seconds=(0.01, 0.02, 0.071), again=(0.02, 0.071),
                      sweeps={4000: 0.004, 8000: 0.008, 16000: 0.016})
    verdict = time_ratio(doubled, reference, options)
    assert verdict.fraction == 0 and "may differ" not in verdict.message, verdict.message


def test_the_extra_rounds_are_checked_against_the_graphs_they_repeat():
    """A `more` row repeats the first rows' graphs (even rounds) or the again rows' (odd): its derivatives must
    be those; wrong ones cost the time points like any timed run's."""
    assert J.same_graphs_as("more0n8000") == "n8000" and J.same_graphs_as("more3n16000") == "again16000"
    assert J.same_graphs_as("again8000") == "again8000"
    reference = _timing([0.5, -1.25])
    wrong = _timing([0.5, -1.25], more=[(0.02, 0.04)], more_derivatives=[0.0, 0.0])
    verdict = time_ratio(wrong, reference, {"max_ratio": 3.0})
    assert verdict.fraction == 0 and "wrong derivatives" in verdict.message


def test_linear_time_on_wrong_derivatives_earns_nothing_and_names_nothing():
    reference = _timing([0.5, -1.25])
    assert time_ratio(_timing([0.5, -1.25]), reference, {}).fraction == 1.0
    wrong = time_ratio(_timing([0.0, 0.0]), reference, {})
    assert wrong.fraction == 0 and wrong.misconception is None and "wrong derivatives" in wrong.message
    missing = _timing([0.5, -1.25])
    for row in missing.value["rows"]:
        del row["derivatives"]
    assert time_ratio(missing, reference, {}).fraction == 0


def _work_rows(works, derivative=1.0, exceeded_at=None):
    rows = []
    for i, work in enumerate(works):
        layers = 2 ** (i + 1)
        row = {"layers": layers, "nodes": 3 * layers + 1, "exceeded": i == exceeded_at, "chain_rule": work, "parents": 0}
        if i != exceeded_at:
            row["derivative"] = derivative
        rows.append(row)
    return rows


def test_work_growth_tells_paths_from_quadratic_from_linear():
    assert work_growth(_work_rows([7, 13, 25, 49])) is None
    assert work_growth(_work_rows([49, 169, 625, 2401])) == "quadratic"
    assert work_growth(_work_rows([12, 48, 765, 200_001], exceeded_at=3), budget=200_000) == "exponential"
    assert work_growth(_work_rows([12, 48, 765, 200_000])) == "exponential"


def test_linear_work_needs_right_derivatives_and_names_the_growth():
    reference = _outcome(_work_rows([7, 13, 25, 49]))
    assert linear_work(_outcome(_work_rows([7, 13, 25, 49])), reference, {}).fraction == 1.0
    wrong = linear_work(_outcome(_work_rows([7, 13, 25, 49], derivative=0.5)), reference, {})
    assert wrong.fraction == 0 and wrong.misconception is None and "wrong derivatives" in wrong.message
    paths = linear_work(_outcome(_work_rows([12, 48, 765, 200_001], exceeded_at=3)), reference, {})
    assert paths.misconception == "path-recursion"
    quadratic = linear_work(_outcome(_work_rows([49, 169, 625, 2401])), reference, {})
    assert quadratic.misconception == "quadratic-traversal"
    families = {"scalars": _work_rows([7, 13, 25, 49]), "tensors": _work_rows([7, 13, 25, 49])}
    broken = {"scalars": _work_rows([7, 13, 25, 49]), "tensors": _work_rows([7, 13, 25, 49], derivative=2.0)}
    assert linear_work(_outcome(families), _outcome(families), {}).fraction == 1.0
    assert "tensors" in linear_work(_outcome(broken), _outcome(families), {}).message


# --------------------------------------------------- instrumented nodes vs the framework's variables


@pytest.fixture(scope="module")
def child_side():
    """autodiff's graph builders (its probes package) and the reference framework, importable the way the
    sandboxed child imports them."""
    extra = [str(ROOT / "graders" / "child"), str(ROOT / "reference")]
    sys.path[:0] = extra
    import harness
    import minitorch

    probes = harness.import_probes(harness.compile_probes(probe_sources(ROOT / "problems" / "autodiff")))
    yield probes.graphs, minitorch
    for p in extra:
        sys.path.remove(p)
    for name in [n for n in sys.modules if n == "probes" or n.startswith("probes.")]:
        del sys.modules[name]


def _shape(v):
    """How a variable looks to code that walks the framework's history."""
    h = v.history
    if h is None:
        return "constant", None
    return ("leaf" if h.last_fn is None else "interior"), len(list(h.inputs))


def test_nodes_have_a_history_shaped_like_the_frameworks(child_side):
    graphs, minitorch = child_side
    g = graphs.Graph()
    leaf, const = g.leaf(), g.constant()
    node = g.op([leaf, const], [2.0, 3.0])
    x, c = minitorch.Scalar(1.5), minitorch.Scalar(2.0, None)
    y = x * c
    assert [_shape(v) for v in (leaf, const, node)] == [_shape(v) for v in (x, c, y)]
    assert [leaf.is_leaf(), const.is_constant(), node.is_leaf()] == [x.is_leaf(), c.is_constant(), y.is_leaf()]
    h = node.history
    assert h.last_fn._backward(h.ctx, 0.5) == (1.0, 1.5)  # the framework's Function._backward(ctx, d)
    before = g.counter.parents
    list(node.history.inputs)
    assert g.counter.parents == before + 1  # walking history.inputs counts like using parents


def test_counting_a_framework_graph_sees_every_walk_and_stops_runaway_ones(child_side):
    graphs, minitorch = child_side
    x = minitorch.Scalar(0.75)
    v = x
    for _ in range(6):
        v = -v + v.sigmoid()
    counter = graphs.Counter()
    nodes = graphs.count_graph_uses(v, counter)
    assert len(nodes) == 3 * 6 + 1 and counter.parents == 0  # instrumenting is not counted
    assert isinstance(v.history, type(x.history))  # still the framework's history class
    list(v.parents)
    assert counter.parents == 1
    v.backward()
    assert x.derivative is not None and counter.parents > 3 * 6
    runaway = graphs.Counter(budget=50)
    y = minitorch.Scalar(0.5)
    w = y
    for _ in range(12):
        w = -w + w.sigmoid()
    graphs.count_graph_uses(w, runaway)

    def every_path(var, d):  # path recursion: one walk per path, 2**12 of them
        for p, dp in var.chain_rule(d):
            if not p.is_leaf():
                every_path(p, dp)

    with pytest.raises(graphs.WorkBudgetExceeded):
        every_path(w, 1.0)


def test_a_largest_pair_is_clearly_linear_only_on_a_clock_that_measured_it(child_side):
    """The timing probe skips measuring the largest pair again when it is clearly linear (ratio 2.1, growth over the
    grader's pass 1.05). On a kernel that will not read the student's CPU clock every run reads 0 s, a ratio of 0
    that would look linear: such rows are always measured again (the parent's marks then time them)."""
    probes = sys.modules["probes"]
    rows = [{"nodes": 8001, "runs": [0.021, 0.02, 0.022], "sweep": 0.008},
            {"nodes": 16001, "runs": [0.042, 0.045, 0.043], "sweep": 0.016}]
    assert probes._clearly_linear(rows)
    assert not probes._clearly_linear([dict(row, runs=[0.0] * 3) for row in rows])
    assert not probes._clearly_linear([rows[0], dict(rows[1], runs=[0.084] * 3)])  # a quadratic pair: measured


@pytest.mark.parametrize("durations, runs", [
    ((0.100, 0.105, 0.050), 2),  # the second within 10 % of the first: the machine slowed neither
    ((0.105, 0.100, 0.050), 2),  # either way
    ((0.100, 0.130, 0.090), 3),  # they disagree: a third
    ((0.130, 0.100, 0.090), 3),
    ((0.0, 0.0, 0.0), 3),  # a kernel that will not read the student's clock: every run is made
])
def test_a_size_stops_after_two_runs_that_agree_and_takes_a_third_when_they_do_not(child_side, monkeypatch,
                                                                                  durations, runs):
    """`_best_time` with the student's process stubbed: the student's CPU clock (as the trusted process reads it)
    moves by `durations` over the runs."""
    probes = sys.modules["probes"]
    monkeypatch.setattr(probes.probekit, "STUDENT", object())  # a student's process beside this one
    readings = iter([t for i, d in enumerate(durations) for t in (10.0 * i, 10.0 * i + d)])
    monkeypatch.setattr(probes, "student_cpu", lambda: next(readings) if any(durations) else 0.0)
    monkeypatch.setattr(probes, "mark", lambda tag: None)
    monkeypatch.setattr(probes, "in_student_process",
                        lambda fn, *args: args[0] if fn is probes.timed_graph else {"derivatives": [1.0]})
    row = probes._best_time(40, 1, probes.SLOW_RUN, "n40")
    assert len(row["runs"]) == len(row["derivatives"]) == runs
    assert row["seconds"] == pytest.approx(min(durations[:runs]))


def test_the_references_sizes_always_make_three_runs(child_side, monkeypatch):
    """The reference's runs (no student's process) give the expected derivatives of every run a student's may
    make: all three, agreeing or not."""
    probes = sys.modules["probes"]
    monkeypatch.setattr(probes.probekit, "STUDENT", None)
    monkeypatch.setattr(probes, "mark", lambda tag: None)
    readings = iter([0.0, 0.1, 1.0, 1.1, 2.0, 2.1])  # three runs that agree
    monkeypatch.setattr(probes, "student_cpu", lambda: next(readings))
    row = probes._best_time(40, 1, probes.SLOW_RUN, "n40")
    assert len(row["runs"]) == len(row["derivatives"]) == 3


def test_a_quadratic_looking_pair_beside_a_disturbed_pass_is_measured_again(child_side):
    """The false loss seen under load: linear code's largest pair read 3.55 while the grader's own linear pass grew
    only 1.51x (the machine slowed the pass at the smaller size), a growth of 2.35 that looked clearly quadratic and
    stopped the measuring. Beside a disturbed pass the pair is measured again; beside an undisturbed one a
    growth past QUADRATIC_GROWTH is clear, and so is a linear one."""
    probes = sys.modules["probes"]

    def pair(ratio, pass_ratio):
        return [{"nodes": 8001, "runs": [0.02] * 3, "sweep": 0.008},
                {"nodes": 16001, "runs": [0.02 * ratio] * 3, "sweep": 0.008 * pass_ratio}]

    assert not probes._pair_is_clear(pair(3.55, 1.51))  # disturbed: measured again
    assert probes._pair_is_clear(pair(4.4, 1.8))  # growth 2.44 beside an undisturbed pass: quadratic, clear
    # the reference's false loss under the suite (b39f47a): 3.36 beside a pass of 1.93, a growth of 1.74 that
    # linear code reaches on a busy machine: measured again, and so is a quadratic growth of about 2
    assert not probes._pair_is_clear(pair(3.36, 1.93))
    assert not probes._pair_is_clear(pair(3.9, 2.0))
    assert probes._pair_is_clear(pair(2.6, 2.2))  # growth 1.18: linear, clear
    # measured again, the smaller size's pass read undisturbed: the pooled best pass grew 1.86x, a growth of 2.37
    # over it is clear; the same pair before that read was not
    assert not probes._pair_is_clear(pair(4.4, 1.51))
    assert probes._pair_is_clear(pair(4.4, 1.51) + [{"nodes": 8001, "runs": [0.02] * 3, "sweep": 0.0065}])
    assert probes._pair_is_clear(pair(5.0, 1.51))  # a ratio past NEAR_BOUND is clear whatever the pass did
    assert not probes._pair_is_clear(pair(3.0, 2.0))  # growth 1.5, between the bounds: measured again


def test_a_random_dag_reads_the_same_through_parents_and_history(child_side):
    graphs, _ = child_side
    graph, _out = graphs.random_dag(random.Random(11), n_leaves=3, n_ops=15, n_constants=2)
    for node in graph.nodes:
        if node.is_constant():
            assert node.history is None
        else:
            assert list(node.history.inputs) == list(node.parents)


def test_numbers_beyond_float_range_are_data_not_grader_faults():
    """A submission may return 10**400 (an int Python keeps exactly): judges and mutant matching read it as an
    infinite number; nothing raises (it once made the mutant matching a grader fault). A figure that cannot draw
    it is left out with a note: the reference's own figure draws, so it is the data, not a grader fault."""
    from graders.baseline import problem_hooks, reference_run
    from graders.grade import draw_figures
    from graders.judge import compare_values, to_array
    from graders.results import ProblemResult, TestResult
    from graders.spec import load_problems

    assert np.isinf(to_array([10**400, -(10**400)])).all()
    assert compare_values([10**400], [1.0], 1e-9, 1e-12) is not None
    rows = [{"nodes": 10**400, "layers": 3, "chain_rule": 5, "parents": 5}, {"nodes": 20, "layers": 4, "chain_rule": 9}]
    (spec,) = load_problems(only=["autodiff"])
    test = next(t for t in spec.tests if t.id == "work_on_diamonds")
    result = ProblemResult(spec.id, spec.title, [TestResult(spec.id, test.id, test.name, test.kind, test.points, 0.0, "",
                                                            figure={"kind": "work", "student": rows, "reference": rows})])
    draw_figures(spec, result, reference_run(spec), dict(problem_hooks(spec).JUDGES), {test.visibility})
    svg = result.tests[0].svg
    assert (svg is not None and svg.startswith("<svg")) or any("could not be drawn" in n for n in result.notes)


def test_only_the_figures_of_tests_the_report_shows_are_drawn_while_grading():
    """The work test is shown after the due date: a grading whose report shows the visible tests (a batch's)
    leaves its figure undrawn (the report withholds it; `autograde report --show all` draws it); one whose report
    shows it draws it."""
    from graders.baseline import problem_hooks, reference_run
    from graders.grade import draw_figures
    from graders.results import ProblemResult, TestResult
    from graders.spec import load_problems
    from reports.render import BEFORE_DUE, STAFF

    rows = [{"nodes": 3 * 2**k, "layers": k, "chain_rule": 6 * 2**k, "parents": 6 * 2**k} for k in range(1, 7)]
    (spec,) = load_problems(only=["autodiff"])
    test = next(t for t in spec.tests if t.id == "work_on_diamonds")
    assert test.visibility not in BEFORE_DUE
    drawn = {}
    for shown in (BEFORE_DUE, STAFF):
        result = ProblemResult(spec.id, spec.title, [TestResult(spec.id, test.id, test.name, test.kind, test.points,
                                                                1.0, "", figure={"kind": "work", "student": rows,
                                                                                 "reference": rows})])
        draw_figures(spec, result, reference_run(spec), dict(problem_hooks(spec).JUDGES), shown)
        drawn[shown] = result.tests[0].svg
        assert result.notes == []
    assert drawn[BEFORE_DUE] is None and drawn[STAFF] is not None and drawn[STAFF].startswith("<svg")
