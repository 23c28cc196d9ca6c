"""Failure clusters (graders.clusters): submissions grouped by how they fail, the uncatalogued groups first.

The signature and the grouping are checked on hand-built results; one batch run checks a real class: the
bundled example class beside three differently written submissions that share a bug the catalogue does not name
(tests/files/uncatalogued/) and two more submissions with the example class's misconceptions."""

from __future__ import annotations

import json

import pytest

import classbuilder as cb
from graders import results as res
from graders.clusters import (
    Failures,
    cluster,
    clusters_json,
    failures_of,
    message_pattern,
    signature,
    signature_id,
    value_pattern,
)

SLIDES = "value: got [{got}], expected [368.038, 489.384] (entry 0: {first} vs 368.0378984; rtol=1e-09, atol=1e-12)"


def result(name, failed, misconceptions=(), passed=("fan_out",), problem="autodiff", fault=None):
    """A GradeResult of one problem: `failed` maps test ids to messages; the `passed` tests pass."""
    tests = [res.TestResult(problem, t, f"Test {t}", "gradient", 2, 0, message) for t, message in failed.items()]
    tests += [res.TestResult(problem, t, f"Test {t}", "gradient", 2, 2, "right") for t in passed]
    return res.GradeResult(submission=name, problems=[
        res.ProblemResult(problem, "Autodiff", tests, misconceptions=list(misconceptions), fault=fault)])


def doubled(line: int, name: str = "x") -> dict:
    """Leaf derivatives doubled on the slides example; a crash on the deep chain at `line`, naming `name`."""
    return {"slides_example": SLIDES.format(got="736.076, 978.768", first="736.0757968"),
            "deep_chain_3000": f"KeyError: '{name}' (minitorch/autodiff.py:{line})"}


def test_message_patterns_drop_numbers_names_paths_and_lines_but_keep_the_error_and_the_words():
    a = "RecursionError: maximum recursion depth exceeded (minitorch/autodiff.py:89): a recursive traversal dies"
    b = "RecursionError: maximum recursion depth exceeded (/tmp/w/sub/minitorch/autodiff.py:178): a recursive traversal dies"
    assert message_pattern(a) == message_pattern(b) == \
        "RecursionError: maximum recursion depth exceeded (<path>:#): a recursive traversal dies"
    assert message_pattern("AttributeError: 'Scalar' object has no attribute 'grad_fn' (project/run_sentiment.py:12)") \
        == message_pattern("AttributeError: 'Tensor' object has no attribute 'derivs' (project/run_sentiment.py:70)")
    assert message_pattern("TypeError: helper() takes 2 positional arguments") == \
        message_pattern("TypeError: _walk() takes 3 positional arguments")
    assert message_pattern("graph 0: node #48 comes before node #49") == "graph #: node # comes before node #"
    assert message_pattern("<Scalar object at 0x7f3a> is bad") == message_pattern("<Tensor object at 0x55aa> is bad")
    # lists of any length are one token; the error type stays
    assert message_pattern("got [1, 2, 3, ...], expected [4, 5, 6, ...]") == "got [#…], expected [#…]"
    assert message_pattern("KeyError: 'x'") != message_pattern("IndexError: 'x'")


@pytest.mark.parametrize("got, want, pattern", [
    ("736.076, 978.768", "368.038, 489.384", "scaled x2"),
    ("-368.038, -489.384", "368.038, 489.384", "negated"),
    ("0, 0", "368.038, 489.384", "zeros"),
    ("nan, 1", "368.038, 489.384", "non-finite"),
    ("0.125, 0.125, 0.125", "0.125, -0.0959, 1.8", "constant"),
    ("1, 489.384", "368.038, 489.384", "wrong"),
])
def test_value_patterns_say_how_the_reported_values_are_wrong(got, want, pattern):
    assert value_pattern(f"leaves: got [{got}], expected [{want}] (entry 0)") == pattern
    assert value_pattern("RecursionError: maximum recursion depth exceeded") == ""


def test_the_same_failures_written_differently_form_one_cluster_with_no_misconception():
    results = [result("hana", doubled(42, "a")), result("ivan", doubled(7, "node")), result("jun", doubled(131, "v1"))]
    found = cluster([failures_of(r) for r in results])
    assert len(found) == 1
    (only,) = found
    assert only.members == ["hana", "ivan", "jun"] and only.misconceptions == [] and not only.catalogued
    assert [t.key for t in only.tests] == ["autodiff/slides_example", "autodiff/deep_chain_3000"]
    assert only.example.startswith("value: got [736.076, 978.768]")
    assert "[scaled x2]" in only.pattern and only.values == "scaled x2"


def test_how_the_values_are_wrong_and_which_tests_fail_both_split_clusters():
    negated = doubled(3)
    negated["slides_example"] = SLIDES.format(got="-368.038, -489.384", first="-368.0378984")
    fewer = {"slides_example": doubled(3)["slides_example"]}
    results = [result("a", doubled(1)), result("b", doubled(2)), result("k", doubled(5, "y"), passed=()),
               result("c", negated), result("d", negated), result("e", fewer), result("f", fewer),
               result("g", {}), result("h", {}), result("lone", {"slides_example": "IndexError: list index out of range"})]
    found = {tuple(c.members) for c in cluster([failures_of(r) for r in results])}
    # only failures are compared (k passes fewer tests: the same cluster as a and b); nothing failed (g, h) and
    # a way of failing nobody shares (lone) make no cluster
    assert found == {("a", "b", "k"), ("c", "d"), ("e", "f")}


def test_misconceptions_named_for_every_member_and_uncatalogued_clusters_first():
    bfs = {"slides_example": SLIDES.format(got="1, 489.384", first="1")}
    results = [result("carol", bfs, ["not-topological"]), result("carol2", bfs, ["not-topological", "order-not-reversed"]),
               result("c3", bfs, ["not-topological"]),
               result("mixed1", doubled(1), ["seed-derivative-ignored"]), result("mixed2", doubled(2))]
    found = cluster([failures_of(r) for r in results])
    assert [(c.members, c.misconceptions) for c in found] == [
        (["mixed1", "mixed2"], []),  # named for one member only: not for the cluster
        (["c3", "carol", "carol2"], ["not-topological"]),
    ]


def test_a_problem_the_grader_failed_on_is_not_a_failure_of_the_student():
    results = [result("a", doubled(1), fault="the reference run failed"), result("b", doubled(1), fault="again")]
    assert failures_of(results[0]).tests == () and cluster([failures_of(r) for r in results]) == []


def test_cluster_ids_are_stable_and_clusters_json_has_the_contracts_fields():
    one = cluster([failures_of(r) for r in [result("b", doubled(1)), result("a", doubled(9))]])
    two = cluster([failures_of(r) for r in [result("z", doubled(4)), result("y", doubled(2)), result("x", doubled(3))]])
    assert one[0].id == two[0].id == signature_id(signature(failures_of(result("q", doubled(8)))))
    doc = json.loads(clusters_json(one))
    assert doc == [{"cluster": one[0].id, "members": ["a", "b"], "misconceptions": [],
                    "tests": ["autodiff/slides_example", "autodiff/deep_chain_3000"], "example": one[0].example}]
    assert cluster([Failures("a"), Failures("b")]) == [] and json.loads(clusters_json([])) == []


# ------------------------------------------------------------------ one batch run


SHARED_BUG = cb.SHARED_BUG


@pytest.mark.slow
def test_a_class_beside_the_example_class_gets_one_uncatalogued_cluster_of_exactly_the_shared_bug():
    """`autograde batch` of the example class beside the three SHARED_BUG submissions and two more with the example
    class's misconceptions, on autodiff (every cluster asserted here is an autodiff one; the two examples whose
    autodiff.py is alice_correct's are left out). The class is graded once per run and shared with test_browser.py,
    which renders its class report (classbuilder.example_class_graded)."""
    examples = cb.ROOT / "examples" / "submissions"
    for twin, same in cb.AUTODIFF_TWINS.items():  # left out of the class: on autodiff, a copy of a member
        assert (examples / twin / cb.AUTODIFF).read_bytes() == (examples / same / cb.AUTODIFF).read_bytes(), twin
    graded = cb.example_class_graded()
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    out = graded.out
    found = json.loads((out / "clusters.json").read_text(encoding="utf-8"))
    assert all(set(c) == {"cluster", "members", "misconceptions", "tests", "example"} for c in found)
    uncatalogued = [c for c in found if not c["misconceptions"]]
    assert [c["members"] for c in uncatalogued] == [list(SHARED_BUG)], found
    assert "autodiff/slides_example" in uncatalogued[0]["tests"] and "736.076" in uncatalogued[0]["example"]
    named = {tuple(c["members"]): c["misconceptions"] for c in found if c["misconceptions"]}
    assert named == {("carol_bfs", "kim_bfs"): ["not-topological"], ("dave_recursive", "lee_recursive"): ["recursion-limit"]}
    assert found[0] == uncatalogued[0]  # the uncatalogued first
    html = (out / "index.html").read_text(encoding="utf-8")
    section = html[html.index('id="uncatalogued-clusters"'):html.index('id="catalogued-clusters"')]
    assert all(f'href="{n}/report.html"' in section for n in SHARED_BUG) and "carol_bfs" not in section
    assert "problems/&lt;problem&gt;/mutants/" in section
    assert "failure clusters: 3 group(s) failing alike, 1 with no misconception named" in graded.stdout
