"""Hypothesis strategies, layer 2: TensorData and Tensors with PERMUTED strides.

Every tensor is built by storing its values in a randomly permuted layout and
then permuting back, so the shape is the requested one while the strides are
usually not the row-major ones: every test that draws tensors from here
exercises non-contiguous inputs.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np
from hypothesis.strategies import DrawFn, SearchStrategy, composite, lists, permutations

import minitorch
from minitorch import Tensor, TensorBackend, TensorData
from strategies import broadcastable_shapes, matmul_shapes, medium_floats, shapes, size_of


@composite
def tensor_data(
    draw: DrawFn,
    numbers: SearchStrategy[float] = medium_floats,
    shape: Optional[Tuple[int, ...]] = None,
) -> TensorData:
    """A TensorData of `shape` (drawn if None) whose strides are a random permutation."""
    if shape is None:
        shape = draw(shapes())
    size = size_of(shape)
    data = draw(lists(numbers, min_size=size, max_size=size))
    order = draw(permutations(range(len(shape))))
    permuted_shape = tuple(shape[i] for i in order)
    inverse = [int(i) for i in np.argsort(order)]
    td = TensorData(data, permuted_shape).permute(*inverse)
    assert td.shape == tuple(shape)
    return td


@composite
def tensors(
    draw: DrawFn,
    numbers: SearchStrategy[float] = medium_floats,
    backend: TensorBackend = minitorch.FastBackend,
    shape: Optional[Tuple[int, ...]] = None,
) -> Tensor:
    """A constant Tensor with permuted strides (call `.requires_grad_(True)` for a leaf)."""
    td = draw(tensor_data(numbers, shape=shape))
    return Tensor(td, backend=backend)


@composite
def shaped_tensors(
    draw: DrawFn,
    n: int,
    numbers: SearchStrategy[float] = medium_floats,
    backend: TensorBackend = minitorch.FastBackend,
) -> List[Tensor]:
    """`n` tensors of one (drawn) shape, each with its own permuted layout."""
    shape = draw(shapes())
    return [draw(tensors(numbers, backend=backend, shape=shape)) for _ in range(n)]


@composite
def broadcast_tensors(
    draw: DrawFn,
    numbers: SearchStrategy[float] = medium_floats,
    backend: TensorBackend = minitorch.FastBackend,
) -> Tuple[Tensor, Tensor]:
    """Two tensors with broadcastable (usually different) shapes."""
    s1, s2 = draw(broadcastable_shapes())
    return (
        draw(tensors(numbers, backend=backend, shape=s1)),
        draw(tensors(numbers, backend=backend, shape=s2)),
    )


@composite
def matmul_tensors(
    draw: DrawFn,
    numbers: SearchStrategy[float] = medium_floats,
    backend: TensorBackend = minitorch.FastBackend,
    max_side: int = 4,
) -> Tuple[Tensor, Tensor]:
    """(batch..., n, k) @ (batch..., k, m) operands, batch dims broadcastable."""
    sa, sb = draw(matmul_shapes(max_side=max_side))
    return (
        draw(tensors(numbers, backend=backend, shape=sa)),
        draw(tensors(numbers, backend=backend, shape=sb)),
    )


def with_backend(t: Tensor, backend: TensorBackend) -> Tensor:
    """The same TensorData (same strides, shared storage) on another backend."""
    return Tensor(t._tensor, backend=backend)


__all__ = [
    "tensor_data",
    "tensors",
    "shaped_tensors",
    "broadcast_tensors",
    "matmul_tensors",
    "with_backend",
]
