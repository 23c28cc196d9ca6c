"""Hypothesis strategies, layer 1: primitives (numbers, shapes, broadcastable shapes).

Composite strategies (tensors with permuted strides, pairs of tensors, ...)
live in `tensor_strategies.py` and are built from these.
"""

from __future__ import annotations

from typing import List, Tuple

from hypothesis.strategies import (
    DrawFn,
    SearchStrategy,
    composite,
    floats,
    integers,
    lists,
    sampled_from,
)

# -- numbers --------------------------------------------------------------

small_floats = floats(min_value=-100, max_value=100, allow_nan=False, allow_infinity=False)
"""Any float in [-100, 100] (zero, subnormals and ties included)."""

medium_floats = floats(min_value=-5, max_value=5, allow_nan=False, allow_infinity=False)
"""Floats whose exponentials and products stay well inside float64 range."""

positive_floats = floats(min_value=0.1, max_value=100, allow_nan=False, allow_infinity=False)
"""Inputs for log / division: bounded away from 0."""

small_ints = integers(min_value=1, max_value=3)


@composite
def nonzero_floats(draw: DrawFn, min_abs: float = 0.1, max_abs: float = 100.0) -> float:
    """A float with $min\\_abs \\le |x| \\le max\\_abs$ (for 1/x)."""
    x = draw(floats(min_value=min_abs, max_value=max_abs, allow_nan=False))
    sign = draw(sampled_from([-1.0, 1.0]))
    return sign * x


@composite
def gridded_floats(draw: DrawFn) -> float:
    """Multiples of 0.5 in [-3, 3]: exact ties for ==, <, relu at 0, ..."""
    return draw(integers(min_value=-6, max_value=6)) * 0.5


# -- shapes ----------------------------------------------------------------


@composite
def shapes(draw: DrawFn, min_dims: int = 1, max_dims: int = 4, max_side: int = 4) -> Tuple[int, ...]:
    """A shape with 1..max_dims dims of sizes 1..max_side."""
    return tuple(
        draw(lists(integers(min_value=1, max_value=max_side), min_size=min_dims, max_size=max_dims))
    )


@composite
def broadcastable_shapes(
    draw: DrawFn, min_dims: int = 1, max_dims: int = 4, max_side: int = 4
) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Two shapes that broadcast together (NumPy rules), usually different.

    Start from one shape; each of the two drops some leading dims and replaces
    some sizes by 1.
    """
    base = draw(shapes(min_dims=min_dims, max_dims=max_dims, max_side=max_side))
    out: List[Tuple[int, ...]] = []
    for _ in range(2):
        keep = draw(integers(min_value=1, max_value=len(base)))
        sub = list(base[len(base) - keep:])
        ones = draw(lists(integers(min_value=0, max_value=len(sub) - 1), max_size=len(sub)))
        for i in ones:
            sub[i] = 1
        out.append(tuple(sub))
    return out[0], out[1]


@composite
def matmul_shapes(
    draw: DrawFn, max_batch_dims: int = 2, max_side: int = 4
) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Shapes (batch_a..., n, k) and (batch_b..., k, m) with broadcastable batch dims."""
    n, k, m = (draw(integers(min_value=1, max_value=max_side)) for _ in range(3))
    if draw(integers(min_value=0, max_value=2)) == 0:
        batch_a: Tuple[int, ...] = ()
        batch_b: Tuple[int, ...] = ()
    else:
        batch_a, batch_b = draw(
            broadcastable_shapes(min_dims=1, max_dims=max_batch_dims, max_side=3)
        )
        # sometimes one side has no batch dims at all
        choice = draw(integers(min_value=0, max_value=3))
        if choice == 0:
            batch_a = ()
        elif choice == 1:
            batch_b = ()
    return batch_a + (n, k), batch_b + (k, m)


def size_of(shape: Tuple[int, ...]) -> int:
    out = 1
    for s in shape:
        out *= s
    return out


__all__ = [
    "SearchStrategy",
    "small_floats",
    "medium_floats",
    "positive_floats",
    "small_ints",
    "nonzero_floats",
    "gridded_floats",
    "shapes",
    "broadcastable_shapes",
    "matmul_shapes",
    "size_of",
]
