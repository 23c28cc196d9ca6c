"""Tensor storage and indexing: how an n-dimensional index becomes a position.

A tensor is a flat 1-D `storage` of float64 plus a `shape` and `strides`. The
element at index $(i_0, \\ldots, i_{d-1})$ lives at position

$$\\mathrm{pos} = \\sum_k i_k \\cdot \\mathrm{strides}_k$$

so `permute` (and with it `transpose`) only reorders shape and strides: the
result is a *view* that shares the storage. A tensor is *contiguous* when its
strides are the row-major ones for its shape ($\\mathrm{strides}_k =
\\prod_{m > k} \\mathrm{shape}_m$); only contiguous tensors can be `view`-ed
to another shape.

Broadcasting follows NumPy/PyTorch: align the shapes on the right, pad the
shorter one with 1s, and every pair of sizes must be equal or contain a 1.
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Iterator, Optional, Sequence, Tuple, TypeAlias, Union  # noqa: F401

import _random

import numpy as np
import numpy.typing as npt
from numpy import array, float64  # noqa: F401  (the course's tensor_data has these names)

from .operators import prod  # noqa: F401  (the course's tensor_data exports it)

__all__ = [
    "MAX_DIMS",
    "IndexingError",
    "Storage",
    "OutIndex",
    "Index",
    "Shape",
    "Strides",
    "UserIndex",
    "UserShape",
    "UserStrides",
    "datatype",
    "datasize",
    "prod",
    "index_to_position",
    "to_index",
    "broadcast_index",
    "shape_broadcast",
    "strides_from_shape",
    "TensorData",
]

MAX_DIMS = 32

#: The storage dtype. The course's TensorData stores float32 (`datatype = np.float32`);
#: ours stores float64 so that gradient checks and twin tests hold to 1e-9 and beyond.
datatype = np.float64
#: Bytes per stored element (the course's `datasize`, 4 there).
datasize = 8


class IndexingError(RuntimeError):
    """An index, shape or stride that does not fit the tensor."""


Storage = npt.NDArray[np.float64]
OutIndex = npt.NDArray[np.int32]
Index = npt.NDArray[np.int32]
Shape = npt.NDArray[np.int32]
Strides = npt.NDArray[np.int32]

UserIndex = Sequence[int]
UserShape = Sequence[int]
UserStrides = Sequence[int]


def index_to_position(index: Index, strides: Strides) -> int:
    r"""Position in storage of a multidimensional index.

    $$\mathrm{pos} = \sum_k \mathrm{index}_k \cdot \mathrm{strides}_k$$

    Args:
        index: index tuple (or array) of ints
        strides: strides of the tensor (same length as `index`)

    Returns:
        The position in the 1-D storage.
    """
    position = 0
    for ind, stride in zip(index, strides):
        position += int(ind) * int(stride)
    return position


def to_index(ordinal: int, shape: Shape, out_index: OutIndex) -> None:
    """Convert an ordinal $0 \\ldots \\mathrm{size}-1$ to the index it has in row-major order.

    Writes into `out_index` (it must have at least `len(shape)` slots) so that
    enumerating ordinals $0, 1, \\ldots$ visits every index exactly once, the
    last dimension moving fastest.

    Args:
        ordinal: ordinal position to convert
        shape: tensor shape
        out_index: return index corresponding to the ordinal
    """
    cur = int(ordinal)
    for i in range(len(shape) - 1, -1, -1):
        size = int(shape[i])
        out_index[i] = cur % size
        cur = cur // size


def broadcast_index(
    big_index: Index, big_shape: Shape, shape: Shape, out_index: OutIndex
) -> None:
    """Map an index of a broadcast (bigger) shape to the index in a smaller shape.

    Dimensions are aligned on the right; where `shape` has size 1 the index is 0
    (the single element is reused), elsewhere it is copied from `big_index`.

    Args:
        big_index: multidimensional index of the bigger tensor
        big_shape: shape of the bigger tensor
        shape: shape of the smaller tensor
        out_index: multidimensional index of the smaller tensor (written)
    """
    offset = len(big_shape) - len(shape)
    for i in range(len(shape)):
        out_index[i] = big_index[i + offset] if shape[i] > 1 else 0


def shape_broadcast(shape1: UserShape, shape2: UserShape) -> Tuple[int, ...]:
    """The shape two tensors broadcast to.

    Args:
        shape1: first shape
        shape2: second shape

    Returns:
        The broadcast shape.

    Raises:
        IndexingError: if the shapes cannot be broadcast (the message names both).
    """
    n1, n2 = len(shape1), len(shape2)
    n = max(n1, n2)
    out = []
    for i in range(n):
        a = int(shape1[i - n + n1]) if i - n + n1 >= 0 else 1
        b = int(shape2[i - n + n2]) if i - n + n2 >= 0 else 1
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise IndexingError(
                f"Cannot broadcast shapes {tuple(shape1)} and {tuple(shape2)}: "
                f"size {a} and size {b} differ at dimension {i - n} (counting from the right)."
            )
    return tuple(out)


#: (shape1, shape2) -> their broadcast shape, for shapes that broadcast (a training loop repeats its shapes)
_BROADCAST_CACHE: dict = {}


def _broadcast_shapes(shape1: Tuple[int, ...], shape2: Tuple[int, ...]) -> Tuple[int, ...]:
    """`shape_broadcast` of two shape tuples (a TensorData's `shape`), remembered.

    Raises the same IndexingError for shapes that do not broadcast (never remembered).
    """
    key = (shape1, shape2)
    out = _BROADCAST_CACHE.get(key)
    if out is None:
        out = shape_broadcast(shape1, shape2)
        if len(_BROADCAST_CACHE) < 4096:
            _BROADCAST_CACHE[key] = out
    return out


_STRIDES_CACHE: dict = {}


def strides_from_shape(shape: UserShape) -> Tuple[int, ...]:
    """Row-major (C-contiguous) strides of `shape`: the last dimension has stride 1."""
    key = tuple(shape)
    cached = _STRIDES_CACHE.get(key)
    if cached is not None:
        return cached
    layout = [1]
    offset = 1
    for s in reversed(key[1:]):
        offset = offset * int(s)
        layout.append(offset)
    strides = tuple(reversed(layout)) if key else ()
    if len(_STRIDES_CACHE) < 4096:
        _STRIDES_CACHE[key] = strides
    return strides


def _is_contiguous(shape: Tuple[int, ...], strides: Tuple[int, ...]) -> bool:
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


_F64 = np.dtype(np.float64)
#: (shape, strides, order) -> (shape, strides, contiguous) of that permuted view (valid orders only)
_PERMUTED: dict = {}


class TensorData:
    """Storage + shape + strides: the data behind a `Tensor`.

    Attributes:
        shape: the shape as a tuple of ints
        strides: the strides as a tuple of ints (in elements, not bytes)
        size: number of elements
        dims: number of dimensions
        _storage: the flat float64 storage (shared by views)
        _shape, _strides: shape and strides as numpy int arrays (minitorch names)
    """

    __slots__ = ("_st", "_array", "shape", "strides", "size", "dims", "_contig")

    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    size: int
    dims: int

    def __init__(
        self,
        storage: Union[Sequence[float], Storage],
        shape: UserShape,
        strides: Optional[UserStrides] = None,
    ):
        if (
            type(storage) is np.ndarray
            and (storage.dtype is _F64 or storage.dtype == _F64)
            and storage.ndim == 1
            and storage.flags.c_contiguous
        ):
            st = storage
        else:
            st = np.array(storage, dtype=np.float64).reshape(-1)
        shape = tuple(map(int, shape))
        if strides is None:
            strides = strides_from_shape(shape)
            contig = True
        else:
            strides = tuple(map(int, strides))
            contig = _is_contiguous(shape, strides)
        if len(strides) != len(shape):
            raise IndexingError(f"Len of strides {strides} must match {shape}.")
        size = 1
        for s in shape:
            if s < 0:
                raise IndexingError(f"Negative size in shape {shape}.")
            size *= s
        if len(st) != size:
            raise IndexingError(
                f"Storage of {len(st)} elements does not fit shape {shape} ({size} elements)."
            )
        self._st = st
        self.shape = shape
        self.strides = strides
        self.size = size
        self.dims = len(shape)
        self._array = None
        self._contig = contig

    @classmethod
    def _from_array(cls, arr: np.ndarray) -> "TensorData":
        """Fast constructor from a fresh C-contiguous float64 ndarray (no checks)."""
        td = _new_td(cls)
        td._st = None
        td._array = arr
        shape = arr.shape
        td.shape = shape
        strides = _STRIDES_CACHE.get(shape)
        td.strides = strides if strides is not None else strides_from_shape(shape)
        td.size = arr.size
        td.dims = len(shape)
        td._contig = True
        return td

    # -- storage and the cached numpy view ---------------------------------

    @property
    def _storage(self) -> Storage:
        st = self._st
        if st is None:
            st = self._st = self._array.reshape(-1)
        return st

    @_storage.setter
    def _storage(self, value: Storage) -> None:
        td = TensorData(value, self.shape, self.strides)
        self._st = td._st
        self._array = None

    @property
    def array(self) -> np.ndarray:
        """A numpy ndarray *view* of this tensor (same memory, same strides); cached."""
        arr = self._array
        if arr is None:
            if self._contig:
                arr = self._st.reshape(self.shape)
            else:
                arr = np.ndarray(
                    self.shape,
                    np.float64,
                    buffer=self._st,
                    strides=tuple(8 * s for s in self.strides),
                )
            self._array = arr
        return arr

    @property
    def _shape(self) -> Shape:
        return np.array(self.shape, dtype=np.int32)

    @property
    def _strides(self) -> Strides:
        return np.array(self.strides, dtype=np.int32)

    def to_cuda_(self) -> None:  # pragma: no cover - CPU only
        """No-op: the CUDA backend of llmsys is emulated on the CPU."""

    def is_contiguous(self) -> bool:
        """True if the strides are the row-major strides of the shape (sizes 1 ignored)."""
        return self._contig

    @staticmethod
    def shape_broadcast(shape_a: UserShape, shape_b: UserShape) -> Tuple[int, ...]:
        """See `shape_broadcast`."""
        return shape_broadcast(shape_a, shape_b)

    # -- element access ------------------------------------------------------

    def index(self, index: Union[int, UserIndex, Index]) -> int:
        """Storage position of an index (a tuple, or an int for 1-D tensors).

        As the course's TensorData: negative entries are NOT supported (no
        counting from the end).

        Raises:
            IndexingError: wrong number of indices, out of range, or negative.
        """
        if isinstance(index, (int, np.integer)):
            index = (int(index),)
        index = tuple(int(i) for i in index)
        if len(index) != len(self.shape):
            raise IndexingError(f"Index {index} must be size of {self.shape}.")
        pos = 0
        for i, size, stride in zip(index, self.shape, self.strides):
            if i >= size:
                raise IndexingError(f"Index {index} out of range {self.shape}.")
            if i < 0:
                raise IndexingError(f"Negative indexing for {index} not supported.")
            pos += i * stride
        return pos

    def indices(self) -> Iterable[UserIndex]:
        """Every index of the tensor, in row-major order."""
        lshape = self.shape
        out_index = [0] * len(lshape)
        for i in range(self.size):
            to_index(i, lshape, out_index)
            yield tuple(out_index)

    def sample(self) -> UserIndex:
        """A random index (Python's `random` module)."""
        return tuple(random.randint(0, s - 1) for s in self.shape)

    def get(self, key: UserIndex) -> float:
        """The element at `key`."""
        return float(self._storage[self.index(key)])

    def set(self, key: UserIndex, val: float) -> None:
        """Set the element at `key` (writes through to every view of the storage)."""
        self._storage[self.index(key)] = val

    def tuple(self) -> Tuple[Storage, Shape, Strides]:
        """(storage, shape, strides) with numpy shape/strides, as minitorch kernels expect."""
        return (self._storage, self._shape, self._strides)

    def permute(self, *order: int) -> "TensorData":
        """A view with the dimensions reordered: new dim `i` is old dim `order[i]`.

        Args:
            *order: a permutation of `range(dims)`

        Returns:
            A TensorData sharing this storage.
        """
        if len(order) == 1 and isinstance(order[0], (tuple, list)):
            order = tuple(order[0])
        order = tuple(map(int, order))
        key = (self.shape, self.strides, order)
        layout = _PERMUTED.get(key)
        if layout is None:
            if sorted(order) != list(range(len(self.shape))):
                raise IndexingError(
                    f"Must give a permutation of range({len(self.shape)}), got {order}."
                )
            shape = tuple(self.shape[o] for o in order)
            strides = tuple(self.strides[o] for o in order)
            layout = (shape, strides, _is_contiguous(shape, strides))
            if len(_PERMUTED) < 4096:
                _PERMUTED[key] = layout
        td = _new_td(TensorData)
        td._st = self._storage
        td.shape, td.strides, td._contig = layout
        td.size = self.size
        td.dims = self.dims
        td._array = self._array.transpose(order) if self._array is not None else None
        return td

    def to_string(self) -> str:
        """Nested-bracket rendering of the values, as in minitorch."""
        if self.dims == 0:
            return f"[{self._storage[0]:3.2f}]"
        arr = self.array
        s = ""
        for index in self.indices():
            line = ""
            for i in range(len(index) - 1, -1, -1):
                if index[i] == 0:
                    line = "\n%s[" % ("\t" * i) + line
                else:
                    break
            s += line
            s += f"{float(arr[index]):3.2f}"
            line = ""
            for i in range(len(index) - 1, -1, -1):
                if index[i] == self.shape[i] - 1:
                    line += "]"
                else:
                    break
            s += line if line else " "
        return s

    def __repr__(self) -> str:
        return f"TensorData(shape={self.shape}, strides={self.strides})"


_new_td = object.__new__


def _td_from_array(arr: Any) -> TensorData:
    """TensorData owning a C-contiguous float64 copy-or-view of `arr` (internal).

    `TensorData._from_array` after the copy, if one is needed (its body, inlined: every op's result
    comes through here).
    """
    if type(arr) is not np.ndarray or arr.dtype is not _F64 or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    td = _new_td(TensorData)
    td._st = None
    td._array = arr
    shape = td.shape = arr.shape
    strides = _STRIDES_CACHE.get(shape)
    td.strides = strides if strides is not None else strides_from_shape(shape)
    td.size = arr.size
    td.dims = len(shape)
    td._contig = True
    return td


# -- many `random.random()` values at once ----------------------------------------------------------


#: from this many values on, `_uniform_floats` computes them from one `getrandbits` call
_BULK_MIN = 128
_C_RANDOM = _random.Random.random


def _bulk_uniform(inst: "_random.Random", n: int) -> np.ndarray:
    """The next `n` values of `inst.random()` (the C method), from the same 32-bit words of its generator.

    `random()` makes each double from two successive MT19937 words a, b as
    ((a >> 5) * 2**26 + (b >> 6)) / 2**53; `getrandbits(64 n)` takes exactly the next
    2n words, the first in the least significant bits. Every step is exact in float64,
    and the generator is left where the n calls leave it.
    """
    bits = _random.Random.getrandbits(inst, 64 * n)
    words = np.frombuffer(bits.to_bytes(8 * n, "little"), dtype="<u4")
    return ((words[0::2] >> 5) * 67108864.0 + (words[1::2] >> 6)) / 9007199254740992.0


def _bulk_matches_the_loop() -> bool:
    """`_bulk_uniform` checked against `random()` itself (values and state after), on private generators."""
    for seed, skip, n in ((0, 0, 1), (1, 5, 623), (2, 623, 2), (3, 1, 1249), (2**40 + 7, 0, 624)):
        bulk, loop = random.Random(seed), random.Random(seed)
        for r in (bulk, loop):
            for _ in range(skip):
                r.random()
        got = _bulk_uniform(bulk, n)
        want = np.array([loop.random() for _ in range(n)], dtype=np.float64)
        if not (np.array_equal(got.view(np.int64), want.view(np.int64)) and bulk.getstate() == loop.getstate()):
            return False  # pragma: no cover - another Python implementation
    return True


#: whether `_bulk_uniform` is exact here: None until first needed
_BULK_OK: Optional[bool] = None


def _uniform_floats(n: int) -> np.ndarray:
    """`np.array([random.random() for _ in range(n)], dtype=np.float64)`, bit for bit.

    The generator is left exactly where those `n` calls leave it. When
    `random.random` is the C method of a `random.Random` (not monkeypatched)
    and `n` is large, the values come from `_bulk_uniform`; otherwise from the
    loop itself (so a patched `random.random` is called `n` times, in order).
    """
    global _BULK_OK
    draw = random.random
    if n >= _BULK_MIN:
        inst = getattr(draw, "__self__", None)
        if isinstance(inst, _random.Random) and draw == _C_RANDOM.__get__(inst):
            if _BULK_OK is None:
                _BULK_OK = _bulk_matches_the_loop()
            if _BULK_OK:
                return _bulk_uniform(inst, n)
    return np.array([random.random() for _ in range(n)], dtype=np.float64)


def iter_shape(shape: UserShape) -> Iterator[Tuple[int, ...]]:
    """Every index of `shape` in row-major order (a convenience for tests and kernels)."""
    size = 1
    for s in shape:
        size *= int(s)
    out = [0] * len(shape)
    for i in range(size):
        to_index(i, shape, out)
        yield tuple(out)
