"""Hostile submissions against the autodiff problem's timing and recursion probes (issue 10, holes 2 and 3).

Hole 2: the timing probe could be told apart from the others (it alone turned the garbage collector
off) and its work could be moved out of the timed window (lazy derivatives converted after the end
mark, work done inside a wrapped `probekit.mark` before the start mark). Hole 3: a recursive
traversal could move the recursion limit by other ways than `sys.setrecursionlimit` (the C API
through ctypes, the harness's own setter found through its frames, a thread with a big stack) and
keep the recursion points.

Attacks are snippets in tests/files/hostile/probe_*.py appended to a base (see hostile_kit):

* recursion attacks sit on a recursive but otherwise right DFS (`autodiff/buggy/recursive`): every deep
  test fails with `recursion-limit`, exactly as the base alone does;
* timing attacks sit on a right but slow base (Kahn's algorithm with a CPU burn growing with the
  fourth power of the graph: `slow_time`) and must score no more than that base, which fails only the
  timing test;
* valid solutions written differently (the reference, an iterative DFS, a generator trampoline, the
  reference wrapped to refuse any probe whose environment differs from its import's) keep full marks.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import hostile_kit as k
from cases import case_named
from cases import graded as graded_case

AD = k.FILES["autodiff"]
DEEP = frozenset({"deep_chain_3000", "deep_chain_10000", "deep_scalar_chain", "deep_tensor_chain"})

#: attacks that move the recursion limit around a recursive DFS (the base: autodiff/buggy/recursive)
LIMIT_ATTACKS = ("probe_limit_ctypes", "probe_limit_pydll", "probe_limit_frames", "probe_limit_reload",
                 "probe_limit_thread", "probe_hide_depth")
#: attacks that rewrite what the student's process sends (issue 21, class 2), armed at import on the recursive base
REWRITE_ATTACKS = ("probe_rewrite_results",)
#: attacks that replace the probes themselves (armed at the first backpropagate call, on the recursive base)
REGISTRY_ATTACKS = ("probe_registry_swap",)
#: attacks on the timing probe, on a right but slow base: {snippet: when it is armed}
TIMING_ATTACKS = {"probe_gc_tell": "none", "probe_lazy_derivatives": "none", "probe_mark_shift": "import"}
#: attacks that pad some sizes of the timing probe on a quadratic twin (the red team's, issue 21): {snippet: twin}
PAD_ATTACKS = {"probe_pad_middle": "autodiff/buggy/quadratic_prepend_concat",
               "probe_pad_middle_clock": "autodiff/buggy/quadratic"}
#: cases graded exactly as their problem's own cases are (tests/cases.py: `graded`, shared with
#: test_problem_cases.py, which grades them anyway): {name here: case}
SHARED_CASES = {"iterative_dfs": "autodiff/valid/course_postorder", "recursive": "autodiff/buggy/recursive",
                **{f"twin:{name}": twin for name, twin in PAD_ATTACKS.items()}}


def _slow_base() -> str:
    """Right derivatives, CPU time growing with the fourth power of the graph: fails the timing test alone."""
    return k.compose(k.source("autodiff/valid/kahn", AD), AD, "slow_time", when="none")


def _cases(tmp):
    recursive = k.source(SHARED_CASES["recursive"], AD)
    slow = _slow_base()
    files = {
        "reference": k.source("reference", AD),
        "trampoline": k.compose(recursive, AD, "probe_trampoline", when="none"),
        "environment_gate": k.compose(k.source("reference", AD), AD, "probe_environment", when="none"),
        "slow": slow,
        **{name: k.compose(recursive, AD, name, when="none") for name in LIMIT_ATTACKS},
        **{name: k.compose(recursive, AD, name, when="call") for name in REGISTRY_ATTACKS},
        **{name: k.compose(recursive, AD, name, when="import") for name in REWRITE_ATTACKS},
        **{name: k.compose(slow, AD, name, when=when) for name, when in TIMING_ATTACKS.items()},
        # the probes' clocks patched (time.perf_counter, monotonic, time): the parent times the CPU from the kernel
        "patched_clock": k.compose(slow, AD, "timing", when="import"),
        **{name: k.compose(k.source(twin, AD), AD, name, when="none") for name, twin in PAD_ATTACKS.items()},
    }
    return {name: k.build(tmp / name, {AD: text}) for name, text in files.items()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every case graded once (two at a time): {name: the autodiff ProblemResult}."""
    cases = _cases(tmp_path_factory.mktemp("probes"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(k.grade, path, ["autodiff"], None, 1) for name, path in cases.items()}
        futures.update({name: pool.submit(shared_case, case) for name, case in SHARED_CASES.items()})
        return {name: k.problem(f.result(), "autodiff") if name not in SHARED_CASES else f.result()
                for name, f in futures.items()}


def shared_case(case_id):
    """The problem's own case graded (once per run, shared with test_problem_cases.py): its autodiff result."""
    result = graded_case(case_named(case_id))
    assert result.id == "autodiff", result.id
    return result


def _failures(p):
    return [(t.id, t.misconception, t.message[:200]) for t in p.tests if not t.passed]


# ------------------------------------------------------------ valid solutions keep full marks


@pytest.mark.parametrize("name", ["reference", "iterative_dfs", "trampoline", "environment_gate"])
def test_valid_solutions_written_differently_keep_full_marks(graded, name):
    """A generator trampoline is iterative; a solution that refuses to work in any probe whose environment
    (gc state and thresholds, recursion limit, hooks) differs from its import's still works in every probe."""
    p = graded[name]
    assert p.fault is None, p.fault
    assert p.score == p.max_score and not p.misconceptions, _failures(p)


# ------------------------------------------------------------ hole 3: the recursion check


def test_the_recursive_base_fails_the_deep_tests(graded):
    p = graded["recursive"]
    assert {t.id for t in p.tests if not t.passed} == DEEP, _failures(p)
    assert set(p.misconceptions) == {"recursion-limit"}


@pytest.mark.parametrize("attack", LIMIT_ATTACKS)
def test_moving_the_recursion_limit_any_way_keeps_no_recursion_points(graded, attack):
    """ctypes' Py_SetRecursionLimit, ctypes.PyDLL(None), the harness's real setter found through frames or
    the garbage collector, importlib.reload(sys), a thread with a big stack: the recursion still shows."""
    p, base = graded[attack], graded["recursive"]
    assert p.fault is None, p.fault
    tests = {t.id: t for t in p.tests}
    for test_id in DEEP:
        assert tests[test_id].score == 0, (test_id, tests[test_id].message)
        assert tests[test_id].misconception == "recursion-limit", (test_id, tests[test_id].message)
    assert set(p.misconceptions) == {"recursion-limit"}, _failures(p)
    assert p.score == base.score, _failures(p)


@pytest.mark.parametrize("attack", REGISTRY_ATTACKS)
def test_swapping_the_probe_registry_changes_nothing(graded, attack):
    """The harness runs the probes from a copy of the registry taken before any of them ran: entries graded
    code swaps in the module's registry (found through the module table) are never called."""
    p, base = graded[attack], graded["recursive"]
    assert p.fault is None, p.fault
    assert {t.id for t in p.tests if not t.passed} == DEEP, _failures(p)
    assert p.score == base.score, _failures(p)


@pytest.mark.parametrize("attack", REWRITE_ATTACKS)
def test_rewriting_what_the_students_process_sends_keeps_no_recursion_points(graded, attack):
    """Issue 21, class 2: the evidence of the deep chains no longer leaves the student's process as a message it
    could rewrite. Their leaf derivatives are accumulated in the trusted process (a RecursionError turned into a
    call that returned leaves them unset), the Scalar and Tensor chains' derivatives are products of random
    factors no forged report can state, and the depth evidence of a trusted call names the recursion."""
    p, base = graded[attack], graded["recursive"]
    assert p.fault is None, p.fault
    tests = {t.id: t for t in p.tests}
    for test_id in DEEP:
        assert tests[test_id].score == 0, (test_id, tests[test_id].message)
    assert p.score == base.score, _failures(p)
    assert "recursion-limit" in p.misconceptions, _failures(p)


# ------------------------------------------------------------ hole 2: the timing probe


def test_the_slow_base_fails_only_the_timing_test(graded):
    p = graded["slow"]
    assert {t.id for t in p.tests if not t.passed} == {"time_doubling"}, _failures(p)


def test_patched_clock_does_not_pass_the_timing_test(graded):
    """The probes' clocks replaced by one where every interval is a millisecond: the parent reads the child's CPU
    time from the kernel, so the slow base's superlinear time still shows (moved here from test_hostile.py, to
    share the slow base's grading)."""
    attacked, base = graded["patched_clock"], graded["slow"]
    assert {t.id for t in base.tests if not t.passed} == {"time_doubling"}, _failures(base)
    assert attacked.score <= base.score, [t.message for t in attacked.tests if t.id == "time_doubling"]


@pytest.mark.parametrize("attack", sorted(TIMING_ATTACKS))
def test_the_timing_probe_cannot_be_recognised_or_its_work_moved_out_of_the_window(graded, attack):
    """Returning at once when gc is off, leaving lazy derivatives whose float() does the work after the
    end mark, doing the work inside a wrapped probekit.mark before the start mark: no timing points. (The
    timing probe runs in the trusted process, which sends the marks: the wrapped `probekit.mark` is the
    student's process's copy, never called; the slow base's own time fails.)"""
    p, base = graded[attack], graded["slow"]
    tests = {t.id: t for t in p.tests}
    assert tests["time_doubling"].score == 0, tests["time_doubling"].message
    assert p.score <= base.score, _failures(p)
    if attack == "probe_mark_shift":  # the work was timed: as the ratio's, or as many times the grader's pass
        message = tests["time_doubling"].message
        assert "time ratios when the graph doubles" in message or "the grader's own linear pass" in message, message


@pytest.mark.parametrize("attack", sorted(PAD_ATTACKS))
def test_padding_the_middle_size_hides_no_quadratic(graded, attack):
    """(issue 21, red team) A quadratic traversal that busy-waits on the middle size only (8000 nodes) so that the
    largest pair looks linear: on the old judge 2/2 (the check against the grader's linear pass was skipped when
    the 4000 -> 8000 ratio was over the bound); the same with the probe's clock in the student's process bent so
    that it neither stops early nor measures more. Every size is compared with the grader's pass whatever the
    ratios say, and the probe reads the student's CPU clock from the trusted process: the twin's score and name."""
    p, twin = graded[attack], graded[f"twin:{attack}"]
    tests, twins = {t.id: t for t in p.tests}, {t.id: t for t in twin.tests}
    assert twins["time_doubling"].score == 0 and twins["time_doubling"].misconception == "quadratic-traversal"
    assert tests["time_doubling"].score == 0, tests["time_doubling"].message
    assert tests["time_doubling"].misconception == "quadratic-traversal", tests["time_doubling"].message
    assert p.score <= twin.score, _failures(p)
