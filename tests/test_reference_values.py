"""Every expected value is a number: no probe's reference value is NaN, infinite, or a missing number (None)
among numbers, in any problem (a test whose expected answer is NaN checks nothing for that entry and confuses
the student who reads "expected [nan, ...]"). Random programs draw their inputs inside each operation's domain
and connect every leaf to the output."""

from __future__ import annotations

import math
from typing import Any, List, Tuple

import numpy as np
import pytest

from graders.baseline import reference_run
from graders.judge import NotNumeric, to_array
from graders.spec import load_problems

#: (problem, test) whose expected value is not finite on purpose (the test is about it); none so far
ABOUT_IT: set = set()


def not_numbers(value: Any, path: str) -> List[Tuple[str, str]]:
    """Where `value` (a probe's plain data) holds a non-finite number or a None among numbers."""
    found: List[Tuple[str, str]] = []
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            if set(item) == {"__float__"}:
                found.append((where, f"a non-finite float ({item['__float__']})"))
                continue
            stack.extend((v, f"{where}.{k}") for k, v in item.items())
        elif isinstance(item, list):
            try:
                array = to_array(item)
            except (NotNumeric, ValueError, TypeError):
                stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
                continue
            if array.dtype.kind == "f" and not np.isfinite(array).all():
                bad = np.argwhere(~np.isfinite(array)).tolist()[:3]
                found.append((where, f"NaN, infinite or None among numbers at {bad}"))
        elif isinstance(item, float) and not math.isfinite(item):
            found.append((where, repr(item)))
    return found


def test_the_finder_sees_nan_infinity_and_none_among_numbers():
    assert not_numbers({"leaves": [1.0, 2.0], "ok": True, "shape": ["?", 3]}, "p") == []
    assert [w for w, _ in not_numbers({"leaves": [None, 2.0]}, "p")] == ["p.leaves"]
    assert [w for w, _ in not_numbers({"x": {"__float__": "nan"}}, "p")] == ["p.x"]
    assert [w for w, _ in not_numbers([[1.0, float("inf")]], "p")] == ["p"]


@pytest.mark.parametrize("spec", load_problems(), ids=lambda s: s.id)
def test_no_expected_value_is_nan_or_infinite(spec):
    run = reference_run(spec)
    problems = [(test.id, where, what) for test in spec.tests if (spec.id, test.id) not in ABOUT_IT
                for where, what in not_numbers(run.outcomes[test.probe].value, test.probe)]
    assert not problems, problems
