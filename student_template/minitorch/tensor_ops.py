"""Tensor backends: `map`, `zip`, `reduce` and `matrix_multiply`, three ways.

A backend (`TensorOps` subclass) only provides four higher-order operations;
`TensorBackend` builds every concrete operation the tensor Functions use from
them (`neg_map = ops.map(operators.neg)`, `add_zip = ops.zip(operators.add)`,
...). Semantics shared by all backends:

* `map(fn)(a, out=None)`: $out_i = fn(a_i)$; with `out` given, `a` is
  broadcast to `out.shape` and the result is written into `out`.
* `zip(fn)(a, b)`: $out_i = fn(a_i, b_i)$ after broadcasting `a` and `b`.
* `reduce(fn, start)(a, dim)`: folds `fn` over dimension `dim` *left to right*
  starting from `start`; the reduced dimension is kept with size 1.
* `matrix_multiply(a, b)`: batched matrix product over the last two dims;
  leading (batch) dims broadcast. Both inputs need at least 2 dims.

The three backends:

1. `SimpleOps`: pure-Python loops over indices (`tensor_map`, `tensor_zip`,
   `tensor_reduce`, `tensor_matrix_multiply`) written with `to_index`,
   `broadcast_index` and `index_to_position`. The executable specification.
2. `NumpyOps` (alias `FastOps`): vectorised NumPy. It recognises the functions
   of `operators` and runs NumPy code that returns *bitwise* the same values as
   the Python loops (same formulas; `exp`/`log` use the same libm routine as
   `math`, see `_exact_unary`; `add`/`mul` reductions accumulate sequentially
   along the reduced axis). Unknown functions fall back to `np.vectorize`.
   (Agreement holds wherever the Python function returns a value: `math`
   raises on overflow / domain errors where NumPy returns inf / nan.)
   Matrix products use `np.matmul` (BLAS; equal to the loops up to rounding).
3. `SimtOps`: a SIMT (CUDA-style) simulator. Kernels are per-thread Python
   functions `kernel(ctx, ...)` that read `ctx.blockIdx`, `ctx.threadIdx`,
   `ctx.blockDim`; `launch(kernel, grid, block, *args)` runs every thread of
   every block sequentially. A kernel that needs a barrier is a generator and
   writes `yield ctx.syncthreads()`: each block then runs in phases, all its
   threads reaching the barrier before any continues. Data is float32 inside a
   kernel. Slow; for teaching and small tensors.
"""

from __future__ import annotations

import inspect
import math
from itertools import product
from typing import TYPE_CHECKING, Any, Callable, List, NamedTuple, Optional, Tuple, Type

import numpy as np
from typing_extensions import Protocol

from . import operators
from .tensor_data import (
    IndexingError,
    MAX_DIMS,
    Shape,
    Storage,
    Strides,
    _broadcast_shapes,
    _td_from_array,
    broadcast_index,
    index_to_position,
    shape_broadcast,
    to_index,
)

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = [
    "MapProto",
    "TensorOps",
    "TensorBackend",
    "SimpleOps",
    "NumpyOps",
    "FastOps",
    "SimtOps",
    "SimpleBackend",
    "FastBackend",
    "SimtBackend",
    "tensor_map",
    "tensor_zip",
    "tensor_reduce",
    "tensor_matrix_multiply",
    "launch",
    "Dim3",
    "ThreadContext",
    "MAX_DIMS",
]


class MapProto(Protocol):
    def __call__(self, x: "Tensor", out: Optional["Tensor"] = ..., /) -> "Tensor":
        ...


class TensorOps:
    """The four operations a backend provides (all static)."""

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapProto:
        """Return `f(a, out=None)` applying `fn` elementwise (see module docstring)."""
        raise NotImplementedError

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> Callable[["Tensor", "Tensor"], "Tensor"]:
        """Return `f(a, b)` applying `fn` elementwise with broadcasting."""
        raise NotImplementedError

    @staticmethod
    def reduce(
        fn: Callable[[float, float], float], start: float = 0.0
    ) -> Callable[["Tensor", int], "Tensor"]:
        """Return `f(a, dim)` folding `fn` over `dim` (kept with size 1)."""
        raise NotImplementedError

    @staticmethod
    def matrix_multiply(a: "Tensor", b: "Tensor") -> "Tensor":
        """Batched matrix product of the last two dims, batch dims broadcast."""
        raise NotImplementedError

    @classmethod
    def cmap(cls, fn: Callable[[float], float]) -> MapProto:
        """The course's name for a map into a given output (`f(a, out)`): the same as `map` here."""
        return cls.map(fn)

    cuda = False


class TensorBackend:
    """Every elementwise/reduction operation the tensor Functions need, built from `ops`.

    Args:
        ops: a `TensorOps` subclass providing `map`, `zip`, `reduce`, `matrix_multiply`.
    """

    def __init__(self, ops: Type[TensorOps]):
        self.ops = ops
        # Maps
        self.neg_map = ops.map(operators.neg)
        self.sigmoid_map = ops.map(operators.sigmoid)
        self.relu_map = ops.map(operators.relu)
        self.log_map = ops.map(operators.log)
        self.exp_map = ops.map(operators.exp)
        self.id_map = ops.map(operators.id)
        self.id_cmap = self.id_map  # older minitorch name
        self.inv_map = ops.map(operators.inv)
        self.tanh_map = ops.map(operators.tanh)

        # Zips
        self.add_zip = ops.zip(operators.add)
        self.mul_zip = ops.zip(operators.mul)
        self.lt_zip = ops.zip(operators.lt)
        self.eq_zip = ops.zip(operators.eq)
        self.is_close_zip = ops.zip(operators.is_close)
        self.relu_back_zip = ops.zip(operators.relu_back)
        self.log_back_zip = ops.zip(operators.log_back)
        self.inv_back_zip = ops.zip(operators.inv_back)
        self.pow_scalar_zip = ops.zip(operators.pow)

        # Reduce
        self.add_reduce = ops.reduce(operators.add, 0.0)
        self.mul_reduce = ops.reduce(operators.mul, 1.0)
        self.matrix_multiply = ops.matrix_multiply
        self.cuda = ops.cuda

    def __repr__(self) -> str:
        return f"TensorBackend({self.ops.__name__})"


# ---------------------------------------------------------------------------
# Shared shape helpers
# ---------------------------------------------------------------------------


def _check_map_out(in_shape: Tuple[int, ...], out_shape: Tuple[int, ...]) -> None:
    if in_shape != out_shape and _broadcast_shapes(tuple(in_shape), tuple(out_shape)) != tuple(out_shape):
        raise IndexingError(f"Cannot map a tensor of shape {in_shape} into shape {out_shape}.")


def _norm_dim(dim: Any, dims: int) -> int:
    d = int(dim)
    if d < 0:
        d += dims
    if not 0 <= d < max(dims, 1):
        raise IndexingError(f"Dimension {dim} out of range for a tensor with {dims} dims.")
    return d


def _matmul_shape(a_shape: Tuple[int, ...], b_shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """Output shape of a batched matmul, with clear errors."""
    if len(a_shape) < 2 or len(b_shape) < 2:
        raise IndexingError(
            f"matrix_multiply needs tensors with at least 2 dims, got {a_shape} and {b_shape}."
        )
    if a_shape[-1] != b_shape[-2]:
        raise IndexingError(
            f"matrix_multiply: shapes {a_shape} and {b_shape} do not match "
            f"({a_shape[-1]} != {b_shape[-2]})."
        )
    a_batch, b_batch = a_shape[:-2], b_shape[:-2]
    batch = a_batch if a_batch == b_batch else shape_broadcast(a_batch, b_batch)
    return tuple(batch) + (a_shape[-2], b_shape[-1])


# ---------------------------------------------------------------------------
# 1. SimpleOps: the executable specification (pure Python loops)
# ---------------------------------------------------------------------------


def tensor_map(
    fn: Callable[[float], float]
) -> Callable[[Storage, Shape, Strides, Storage, Shape, Strides], None]:
    """Low-level map: `out[i] = fn(in[broadcast(i)])` for every index `i` of `out`.

    `in_shape` must broadcast to `out_shape` (it may be smaller).

    Returns:
        `_map(out, out_shape, out_strides, in_storage, in_shape, in_strides)`.
    """

    def _map(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        in_storage: Storage,
        in_shape: Shape,
        in_strides: Strides,
    ) -> None:
        out_shape = [int(s) for s in out_shape]
        in_shape = [int(s) for s in in_shape]
        out_index = [0] * len(out_shape)
        in_index = [0] * len(in_shape)
        size = 1
        for s in out_shape:
            size *= s
        for ordinal in range(size):
            to_index(ordinal, out_shape, out_index)
            broadcast_index(out_index, out_shape, in_shape, in_index)
            o = index_to_position(out_index, out_strides)
            j = index_to_position(in_index, in_strides)
            out[o] = fn(float(in_storage[j]))

    return _map


def tensor_zip(fn: Callable[[float, float], float]) -> Callable[..., None]:
    """Low-level zip: `out[i] = fn(a[broadcast(i)], b[broadcast(i)])`.

    Returns:
        `_zip(out, out_shape, out_strides, a_storage, a_shape, a_strides,
        b_storage, b_shape, b_strides)`.
    """

    def _zip(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        b_storage: Storage,
        b_shape: Shape,
        b_strides: Strides,
    ) -> None:
        out_shape = [int(s) for s in out_shape]
        a_shape = [int(s) for s in a_shape]
        b_shape = [int(s) for s in b_shape]
        out_index = [0] * len(out_shape)
        a_index = [0] * len(a_shape)
        b_index = [0] * len(b_shape)
        size = 1
        for s in out_shape:
            size *= s
        for ordinal in range(size):
            to_index(ordinal, out_shape, out_index)
            broadcast_index(out_index, out_shape, a_shape, a_index)
            broadcast_index(out_index, out_shape, b_shape, b_index)
            o = index_to_position(out_index, out_strides)
            i = index_to_position(a_index, a_strides)
            j = index_to_position(b_index, b_strides)
            out[o] = fn(float(a_storage[i]), float(b_storage[j]))

    return _zip


def tensor_reduce(fn: Callable[[float, float], float]) -> Callable[..., None]:
    """Low-level reduce: `out[i] = fn(... fn(fn(out[i], a[i, 0]), a[i, 1]) ..., a[i, n-1])`.

    `out` must already hold the start value; `out_shape` is `a_shape` with a 1
    at `reduce_dim`.

    Returns:
        `_reduce(out, out_shape, out_strides, a_storage, a_shape, a_strides, reduce_dim)`.
    """

    def _reduce(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        reduce_dim: int,
    ) -> None:
        out_shape = [int(s) for s in out_shape]
        reduce_size = int(a_shape[reduce_dim])
        out_index = [0] * len(out_shape)
        size = 1
        for s in out_shape:
            size *= s
        for ordinal in range(size):
            to_index(ordinal, out_shape, out_index)
            o = index_to_position(out_index, out_strides)
            acc = float(out[o])
            for s in range(reduce_size):
                out_index[reduce_dim] = s
                acc = fn(acc, float(a_storage[index_to_position(out_index, a_strides)]))
            out[o] = acc

    return _reduce


def tensor_matrix_multiply(
    out: Storage,
    out_shape: Shape,
    out_strides: Strides,
    a_storage: Storage,
    a_shape: Shape,
    a_strides: Strides,
    b_storage: Storage,
    b_shape: Shape,
    b_strides: Strides,
) -> None:
    r"""Low-level batched matmul: $out[..., i, j] = \sum_k a[..., i, k]\, b[..., k, j]$.

    The batch dims of `a` and `b` broadcast to those of `out`; the sum over `k`
    runs left to right starting from 0.
    """
    out_shape = [int(s) for s in out_shape]
    a_shape = [int(s) for s in a_shape]
    b_shape = [int(s) for s in b_shape]
    n_k = a_shape[-1]
    out_index = [0] * len(out_shape)
    a_index = [0] * len(a_shape)
    b_index = [0] * len(b_shape)
    size = 1
    for s in out_shape:
        size *= s
    for ordinal in range(size):
        to_index(ordinal, out_shape, out_index)
        broadcast_index(out_index[:-2], out_shape[:-2], a_shape[:-2], a_index)
        broadcast_index(out_index[:-2], out_shape[:-2], b_shape[:-2], b_index)
        a_index[-2] = out_index[-2]
        b_index[-1] = out_index[-1]
        acc = 0.0
        for k in range(n_k):
            a_index[-1] = k
            b_index[-2] = k
            acc += float(a_storage[index_to_position(a_index, a_strides)]) * float(
                b_storage[index_to_position(b_index, b_strides)]
            )
        out[index_to_position(out_index, out_strides)] = acc


class SimpleOps(TensorOps):
    """Pure-Python backend (slow, obviously correct)."""

    is_cuda = False  # the course's SimpleOps says so

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapProto:
        f = tensor_map(fn)

        def ret(a: "Tensor", out: Optional["Tensor"] = None) -> "Tensor":
            if out is None:
                out = a.zeros(a.shape)
            else:
                _check_map_out(a.shape, out.shape)
            f(*out.tuple(), *a.tuple())
            return out

        return ret

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> Callable[["Tensor", "Tensor"], "Tensor"]:
        f = tensor_zip(fn)

        def ret(a: "Tensor", b: "Tensor") -> "Tensor":
            c_shape = a.shape if a.shape == b.shape else shape_broadcast(a.shape, b.shape)
            out = a.zeros(c_shape)
            f(*out.tuple(), *a.tuple(), *b.tuple())
            return out

        return ret

    @staticmethod
    def reduce(
        fn: Callable[[float, float], float], start: float = 0.0
    ) -> Callable[["Tensor", int], "Tensor"]:
        f = tensor_reduce(fn)

        def ret(a: "Tensor", dim: int) -> "Tensor":
            dim = _norm_dim(dim, a.dims)
            out_shape = list(a.shape)
            out_shape[dim] = 1
            out = a.zeros(tuple(out_shape))
            out._tensor._storage[:] = start
            f(*out.tuple(), *a.tuple(), dim)
            return out

        return ret

    @staticmethod
    def matrix_multiply(a: "Tensor", b: "Tensor") -> "Tensor":
        out = a.zeros(_matmul_shape(a.shape, b.shape))
        tensor_matrix_multiply(*out.tuple(), *a.tuple(), *b.tuple())
        return out

    cuda = False


# ---------------------------------------------------------------------------
# 2. NumpyOps: vectorised, bitwise equal to SimpleOps on map/zip/reduce
# ---------------------------------------------------------------------------


def _exact_unary(np_fn: Callable, math_fn: Callable, sample: np.ndarray) -> Callable:
    """A vectorised version of `math_fn` that returns bitwise the same floats.

    NumPy's contiguous float64 `exp`/`log` loops use their own SIMD code (AVX512),
    which differs from libm (what `math` calls) by one ulp on a few percent of
    inputs. Its scalar fallback loop calls libm, and NumPy takes that loop for
    inputs with negative strides. We check at import time, on a sample, that
    the trick indeed reproduces `math_fn` bit for bit; if not (another NumPy or
    platform), we call `math_fn` element by element (exact, slower).
    """

    def via_reversed(x: np.ndarray) -> np.ndarray:
        flat = x.reshape(-1)
        return np.ascontiguousarray(np_fn(flat[::-1])[::-1]).reshape(x.shape)

    def via_math(x: np.ndarray) -> np.ndarray:
        vals = np.asarray(x, dtype=np.float64)
        return np.fromiter(
            (math_fn(v) for v in vals.reshape(-1).tolist()), np.float64, vals.size
        ).reshape(vals.shape)

    ref = via_math(sample)
    with np.errstate(all="ignore"):
        got = via_reversed(sample)
    if np.array_equal(got.view(np.int64), ref.view(np.int64)):
        return via_reversed
    return via_math  # pragma: no cover - depends on the NumPy build


_rng = np.random.default_rng(12345)
_exp = _exact_unary(
    np.exp,
    math.exp,
    np.concatenate([_rng.normal(0, 3, 4096), _rng.uniform(-700, 700, 4096), [0.0, -0.0, 1.0]]),
)
_log = _exact_unary(
    np.log,
    math.log,
    np.concatenate([np.exp(_rng.uniform(-700, 700, 4096)), _rng.uniform(0.25, 4.0, 4096), [1.0]]),
)
_tanh = _exact_unary(
    np.tanh,
    math.tanh,
    np.concatenate([_rng.normal(0, 3, 4096), _rng.uniform(-25, 25, 4096), [0.0, -0.0, 1.0]]),
)


def _exact_pow(sample_x: np.ndarray, sample_y: np.ndarray) -> Callable[[Any, Any], np.ndarray]:
    """A vectorised `x ** y` (Python floats) returning bitwise the same values.

    `np.power` with a scalar (or broadcast) exponent takes fast paths (`square`,
    `sqrt`, `reciprocal`) that differ from libm's `pow` by one ulp; with a full
    array exponent it calls `pow` element by element, like Python. So the
    exponent is expanded to the full shape first. Checked at import time on a
    sample; if that fails (another NumPy or platform) Python's `**` is called
    element by element. (Where Python raises or returns a complex number,
    NumPy returns inf / nan.)
    """

    def via_full(x: Any, y: Any) -> np.ndarray:
        x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        return np.power(np.ascontiguousarray(x), np.ascontiguousarray(y))

    def via_python(x: Any, y: Any) -> np.ndarray:
        x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        vals = (float(u) ** float(v) for u, v in zip(x.reshape(-1).tolist(), y.reshape(-1).tolist()))
        return np.fromiter(vals, np.float64, x.size).reshape(x.shape)

    ref = via_python(sample_x, sample_y)
    with np.errstate(all="ignore"):
        got = via_full(sample_x, sample_y)
    if np.array_equal(got.view(np.int64), ref.view(np.int64)):
        return via_full
    return via_python  # pragma: no cover - depends on the NumPy build


_base = _rng.uniform(0.0, 10.0, 4096)
_pow = _exact_pow(
    np.concatenate([_base, _base, _base, _rng.normal(0, 3, 1024)]),
    np.concatenate([np.full(4096, 2.0), np.full(4096, 0.5), _rng.uniform(-4, 4, 4096), np.full(1024, 3.0)]),
)
del _rng, _base


def _np_id(x: np.ndarray) -> np.ndarray:
    return x.copy()


def _np_relu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, 0.0)


def _np_sigmoid(x: np.ndarray) -> np.ndarray:
    # operators.sigmoid: x >= 0 -> 1 / (1 + exp(-x)); x < 0 -> exp(x) / (1 + exp(x)).
    # In both cases the exponential is exp(-|x|).
    # The numerator is 1 or e, the denominator 1 + e in both cases: one division.
    e = _exp(np.negative(np.abs(x)))
    return np.divide(np.where(x >= 0, 1.0, e), 1.0 + e)


def _np_inv(x: np.ndarray) -> np.ndarray:
    return np.divide(1.0, x)


def _np_lt(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.less(x, y).astype(np.float64)


def _np_eq(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.equal(x, y).astype(np.float64)


def _np_is_close(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.less(np.abs(np.subtract(x, y)), 1e-2).astype(np.float64)


def _np_max(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(np.greater(x, y), x, y)


def _np_relu_back(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    return np.where(x > 0, d, 0.0)


def _np_log_back(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    return np.divide(d, x)


def _np_inv_back(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    return np.divide(np.negative(d), np.multiply(x, x))


def _np_sigmoid_back(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    s = _np_sigmoid(x)
    return np.multiply(np.multiply(d, s), np.subtract(1.0, s))


_UNARY = {
    "neg": np.negative,
    "id": _np_id,
    "relu": _np_relu,
    "sigmoid": _np_sigmoid,
    "log": _log,
    "exp": _exp,
    "inv": _np_inv,
    "tanh": _tanh,
}
_BINARY = {
    "add": np.add,
    "mul": np.multiply,
    "lt": _np_lt,
    "eq": _np_eq,
    "is_close": _np_is_close,
    "max": _np_max,
    "relu_back": _np_relu_back,
    "log_back": _np_log_back,
    "inv_back": _np_inv_back,
    "sigmoid_back": _np_sigmoid_back,
    "pow": _pow,
}


def _operator_name(fn: Callable) -> Optional[str]:
    """The name of `fn` if it is one of the functions of `operators` (else None)."""
    name = getattr(fn, "__name__", None)
    if name is not None and getattr(operators, name, None) is fn:
        return name
    # A re-imported copy of the operators module (same code, new objects).
    if name is not None and getattr(fn, "__module__", None) == operators.__name__:
        return name
    return None


def _vectorize_unary(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    name = _operator_name(fn)
    if name in _UNARY:
        return _UNARY[name]
    vf = np.vectorize(lambda v: fn(float(v)), otypes=[np.float64])
    return lambda x: vf(x) if x.size else np.zeros(x.shape)


def _vectorize_binary(fn: Callable[[float, float], float]) -> Callable[[Any, Any], np.ndarray]:
    name = _operator_name(fn)
    if name in _BINARY:
        return _BINARY[name]
    vf = np.vectorize(lambda u, v: fn(float(u), float(v)), otypes=[np.float64])

    def f(x: Any, y: Any) -> np.ndarray:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if x.size == 0 or y.size == 0:
            return np.zeros(np.broadcast_shapes(x.shape, y.shape))
        return vf(x, y)

    return f


_PREFIX = [(slice(None),) * d for d in range(MAX_DIMS)]

#: (shape, byte strides) -> `_fastest_axis` (a training loop repeats its layouts)
_FASTEST_AXIS: dict = {}


def _fastest_axis(shape: Tuple[int, ...], strides: Tuple[int, ...]) -> int:
    """The axis of size > 1 with the smallest |stride| (the first of equals); -1 if there is none."""
    key = (shape, strides)
    fastest = _FASTEST_AXIS.get(key)
    if fastest is None:
        fastest, fast_stride = -1, None
        for d, (size, stride) in enumerate(zip(shape, strides)):
            if size > 1 and (fast_stride is None or abs(stride) < fast_stride):
                fastest, fast_stride = d, abs(stride)
        if len(_FASTEST_AXIS) < 4096:
            _FASTEST_AXIS[key] = fastest
    return fastest


def _sequential_reduce(ufunc: np.ufunc, start: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """`ufunc.reduce` along `dim` in the order of the Python fold: start, a0, a1, ...

    NumPy sums *along the fast (innermost) memory axis* pairwise, but along any
    other axis it adds slice after slice, i.e. sequentially (documented in
    `numpy.sum`). So: if the reduced axis is the fastest non-trivial axis we
    first copy the data so that it becomes the slowest one; a pure 1-D
    reduction uses `ufunc.accumulate`, which is sequential by definition.
    The identity `start` is passed as `initial`, so the first operation is
    `start + a0` exactly as in the loop. A self-check at import time guards the
    assumption (see `_check_sequential_reduce`).
    """

    def reduce(x: np.ndarray, dim: int) -> np.ndarray:
        shape = x.shape
        n = shape[dim]
        if _fastest_axis(shape, x.strides) == dim:
            m = x.size // n
            kept = shape[:dim] + (1,) + shape[dim + 1:]
            if m == 1:
                # 1-D fold: accumulate is sequential by definition; the identity `start` comes last
                # (start + a0 differs from a0 at most in the sign of a zero, which this settles alike)
                acc = ufunc.accumulate(x.reshape(n))
                return ufunc(acc[-1:], start).reshape(kept)
            # make the reduced axis the slowest in memory
            x = np.ascontiguousarray(x.transpose((dim,) + tuple(d for d in range(len(shape)) if d != dim)))
            return ufunc.reduce(x, axis=0, initial=start).reshape(kept)
        return ufunc.reduce(x, axis=dim, keepdims=True, initial=start)

    return reduce


def _check_sequential_reduce() -> bool:
    """True if NumPy reduces non-fast axes sequentially on this machine (sampled check)."""
    rng = np.random.default_rng(7)
    x = rng.normal(0.0, 1.0, (64, 3, 5)) * np.exp(rng.uniform(-30, 30, (64, 3, 5)))
    for dim in range(3):
        for perm in ((0, 1, 2), (2, 0, 1), (1, 2, 0)):
            y = np.ascontiguousarray(x.transpose(perm)).transpose(np.argsort(perm))
            got = _sequential_reduce(np.add, 0.0)(y, dim)
            moved = np.moveaxis(y, dim, -1)
            ref = np.zeros(moved.shape[:-1])
            for idx in np.ndindex(*moved.shape[:-1]):
                acc = 0.0
                for v in moved[idx].tolist():
                    acc = acc + v
                ref[idx] = acc
            if not np.array_equal(got.reshape(ref.shape).view(np.int64), ref.view(np.int64)):
                return False  # pragma: no cover
    return True


_SEQUENTIAL_REDUCE_OK = _check_sequential_reduce()


class NumpyOps(TensorOps):
    """NumPy backend: the default (`FastBackend`)."""

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapProto:
        vf = _vectorize_unary(fn)
        is_id = vf is _np_id

        def ret(a: "Tensor", out: Optional["Tensor"] = None) -> "Tensor":
            ta = a._tensor
            x = ta._array if ta._array is not None else ta.array  # the cached view, read without the property
            if out is None:
                return a._new(_td_from_array(vf(x)))
            o = out._tensor.array
            if o.shape != x.shape:
                _check_map_out(x.shape, o.shape)
            np.copyto(o, x if is_id else vf(x))
            return out

        return ret

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> Callable[["Tensor", "Tensor"], "Tensor"]:
        vf = _vectorize_binary(fn)

        def ret(a: "Tensor", b: "Tensor") -> "Tensor":
            ta, tb = a._tensor, b._tensor
            if ta.shape != tb.shape:
                _broadcast_shapes(ta.shape, tb.shape)  # IndexingError if incompatible
            x = ta._array if ta._array is not None else ta.array  # the cached views, read without the property
            y = tb._array if tb._array is not None else tb.array
            return a._new(_td_from_array(vf(x, y)))

        return ret

    @staticmethod
    def reduce(
        fn: Callable[[float, float], float], start: float = 0.0
    ) -> Callable[["Tensor", int], "Tensor"]:
        name = _operator_name(fn)
        start = float(start)
        fast = None
        if _SEQUENTIAL_REDUCE_OK and (
            (name == "add" and start == 0.0) or (name == "mul" and start == 1.0)
        ):
            fast = _sequential_reduce(np.add if name == "add" else np.multiply, start)
        vf = _vectorize_binary(fn)

        def ret(a: "Tensor", dim: int) -> "Tensor":
            ta = a._tensor
            x = ta._array if ta._array is not None else ta.array  # the cached view, read without the property
            nd = x.ndim
            if dim.__class__ is not int or not 0 <= dim < nd:
                dim = _norm_dim(dim, nd)
            if fast is not None and x.shape[dim] > 0:
                r = fast(x, dim)
            else:
                shape = list(x.shape)
                shape[dim] = 1
                r = np.full(shape, start)
                for j in range(x.shape[dim]):
                    r = vf(r, x[_PREFIX[dim] + (slice(j, j + 1),)])
            return a._new(_td_from_array(r))

        return ret

    @staticmethod
    def matrix_multiply(a: "Tensor", b: "Tensor") -> "Tensor":
        ta, tb = a._tensor, b._tensor
        sa, sb = ta.shape, tb.shape
        if len(sa) < 2 or len(sb) < 2 or sa[-1] != sb[-2] or (
            len(sa) > 2 and len(sb) > 2 and sa[:-2] != sb[:-2]
        ):
            _matmul_shape(sa, sb)
        x = ta._array if ta._array is not None else ta.array  # the cached views, read without the property
        y = tb._array if tb._array is not None else tb.array
        return a._new(_td_from_array(np.matmul(x, y)))

    cuda = False


FastOps = NumpyOps


# ---------------------------------------------------------------------------
# 3. SimtOps: a CUDA-style SIMT simulator (float32, sequential threads)
# ---------------------------------------------------------------------------


class Dim3(NamedTuple):
    """A CUDA `dim3`: sizes or coordinates along x, y, z."""

    x: int
    y: int = 1
    z: int = 1


def _dim3(v: Any) -> Dim3:
    if isinstance(v, Dim3):
        return v
    if isinstance(v, int):
        return Dim3(v)
    return Dim3(*v)


_SYNC = object()


class ThreadContext:
    """What a simulated thread sees: its coordinates and its block's shared memory."""

    __slots__ = ("blockIdx", "threadIdx", "blockDim", "gridDim", "_shared", "_n_shared")

    def __init__(self, block_idx: Dim3, thread_idx: Dim3, block_dim: Dim3, grid_dim: Dim3, shared: list):
        self.blockIdx = block_idx
        self.threadIdx = thread_idx
        self.blockDim = block_dim
        self.gridDim = grid_dim
        self._shared = shared
        self._n_shared = 0

    def shared_array(self, shape: Any, dtype: Any = np.float32) -> np.ndarray:
        """`cuda.shared.array`: the k-th call in every thread of a block returns the same array."""
        k = self._n_shared
        self._n_shared += 1
        if k == len(self._shared):
            self._shared.append(np.zeros(shape, dtype=dtype))
        return self._shared[k]

    def syncthreads(self) -> object:
        """The barrier marker: a kernel writes `yield ctx.syncthreads()`."""
        return _SYNC


def launch(kernel: Callable[..., Any], grid: Any, block: Any, *args: Any) -> None:
    """Run `kernel(ctx, *args)` for every thread of a `grid` of `block`s.

    Blocks run one after the other; the threads of a block run sequentially. If
    `kernel` is a generator function, each `yield ctx.syncthreads()` is a barrier:
    every thread of the block runs up to its next barrier before any thread
    goes past it. A block in which some threads exit while others wait at a
    barrier raises `RuntimeError` (a deadlock/undefined behaviour on a GPU).
    """
    grid, block = _dim3(grid), _dim3(block)
    is_gen = inspect.isgeneratorfunction(kernel)
    for bz, by, bx in product(range(grid.z), range(grid.y), range(grid.x)):
        block_idx = Dim3(bx, by, bz)
        shared: list = []
        ctxs = [
            ThreadContext(block_idx, Dim3(tx, ty, tz), block, grid, shared)
            for tz, ty, tx in product(range(block.z), range(block.y), range(block.x))
        ]
        if not is_gen:
            for ctx in ctxs:
                kernel(ctx, *args)
            continue
        active = [kernel(ctx, *args) for ctx in ctxs]
        phase = 0
        while active:
            waiting = []
            finished = 0
            for g in active:
                try:
                    marker = next(g)
                except StopIteration:
                    finished += 1
                    continue
                if marker is not _SYNC:
                    raise RuntimeError("A kernel may only `yield ctx.syncthreads()`.")
                waiting.append(g)
            if waiting and finished:
                raise RuntimeError(
                    f"Divergent syncthreads() in block {tuple(block_idx)} at barrier {phase}: "
                    f"{finished} thread(s) exited while {len(waiting)} wait."
                )
            active = waiting
            phase += 1


THREADS_PER_BLOCK = 32
REDUCE_THREADS = 8
TILE = 4


def _map_kernel(ctx: ThreadContext, fn, out, out_shape, out_strides, out_size, a, a_shape, a_strides) -> None:  # noqa: ANN001
    i = ctx.blockIdx.x * ctx.blockDim.x + ctx.threadIdx.x
    if i >= out_size:
        return
    out_index = [0] * len(out_shape)
    a_index = [0] * len(a_shape)
    to_index(i, out_shape, out_index)
    broadcast_index(out_index, out_shape, a_shape, a_index)
    v = fn(float(a[index_to_position(a_index, a_strides)]))
    out[index_to_position(out_index, out_strides)] = v


def _zip_kernel(ctx: ThreadContext, fn, out, out_shape, out_strides, out_size, a, a_shape, a_strides, b, b_shape, b_strides) -> None:  # noqa: ANN001,E501
    i = ctx.blockIdx.x * ctx.blockDim.x + ctx.threadIdx.x
    if i >= out_size:
        return
    out_index = [0] * len(out_shape)
    a_index = [0] * len(a_shape)
    b_index = [0] * len(b_shape)
    to_index(i, out_shape, out_index)
    broadcast_index(out_index, out_shape, a_shape, a_index)
    broadcast_index(out_index, out_shape, b_shape, b_index)
    v = fn(float(a[index_to_position(a_index, a_strides)]), float(b[index_to_position(b_index, b_strides)]))
    out[index_to_position(out_index, out_strides)] = v


def _reduce_kernel(ctx: ThreadContext, fn, start, out, out_shape, out_strides, a, a_shape, a_strides, dim):  # noqa: ANN001,ANN201
    """One block per output element; threads stride over `dim`, then a tree in shared memory."""
    cache = ctx.shared_array(ctx.blockDim.x)
    t = ctx.threadIdx.x
    out_index = [0] * len(out_shape)
    to_index(ctx.blockIdx.x, out_shape, out_index)
    a_index = list(out_index)
    acc = np.float32(start)
    for j in range(t, a_shape[dim], ctx.blockDim.x):
        a_index[dim] = j
        acc = np.float32(fn(float(acc), float(a[index_to_position(a_index, a_strides)])))
    cache[t] = acc
    yield ctx.syncthreads()
    stride = ctx.blockDim.x // 2
    while stride > 0:
        if t < stride:
            cache[t] = fn(float(cache[t]), float(cache[t + stride]))
        yield ctx.syncthreads()
        stride //= 2
    if t == 0:
        out[index_to_position(out_index, out_strides)] = cache[0]


def _matmul_kernel(ctx: ThreadContext, out, out_offsets, a, a_offsets, a_rs, a_cs, b, b_offsets, b_rs, b_cs, n, k, m):  # noqa: ANN001,ANN201,E501
    """Shared-memory tiled matmul: each block computes a TILE x TILE tile of one batch."""
    tile = ctx.blockDim.x
    a_sh = ctx.shared_array((tile, tile))
    b_sh = ctx.shared_array((tile, tile))
    batch = ctx.blockIdx.z
    ti, tj = ctx.threadIdx.x, ctx.threadIdx.y
    i = ctx.blockIdx.x * tile + ti
    j = ctx.blockIdx.y * tile + tj
    a_off, b_off = a_offsets[batch], b_offsets[batch]
    acc = np.float32(0.0)
    for k0 in range(0, k, tile):
        kk = k0 + tj
        a_sh[ti, tj] = a[a_off + i * a_rs + kk * a_cs] if (i < n and kk < k) else 0.0
        kk = k0 + ti
        b_sh[ti, tj] = b[b_off + kk * b_rs + j * b_cs] if (kk < k and j < m) else 0.0
        yield ctx.syncthreads()
        for q in range(tile):
            acc = np.float32(acc + a_sh[ti, q] * b_sh[q, tj])
        yield ctx.syncthreads()
    if i < n and j < m:
        out[out_offsets[batch] + i * m + j] = acc


def _f32(t: "Tensor") -> np.ndarray:
    return t._tensor._storage.astype(np.float32)


class SimtOps(TensorOps):
    """SIMT simulator backend (float32 kernels, one Python call per thread)."""

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapProto:
        def ret(a: "Tensor", out: Optional["Tensor"] = None) -> "Tensor":
            if out is None:
                out = a.zeros(a.shape)
            else:
                _check_map_out(a.shape, out.shape)
            out_st = _f32(out)
            blocks = (out.size + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            launch(_map_kernel, blocks, THREADS_PER_BLOCK, fn, out_st, out.shape,
                   out._tensor.strides, out.size, _f32(a), a.shape, a._tensor.strides)
            out._tensor._storage[:] = out_st
            return out

        return ret

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> Callable[["Tensor", "Tensor"], "Tensor"]:
        def ret(a: "Tensor", b: "Tensor") -> "Tensor":
            out = a.zeros(a.shape if a.shape == b.shape else shape_broadcast(a.shape, b.shape))
            out_st = _f32(out)
            blocks = (out.size + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            launch(_zip_kernel, blocks, THREADS_PER_BLOCK, fn, out_st, out.shape,
                   out._tensor.strides, out.size, _f32(a), a.shape, a._tensor.strides,
                   _f32(b), b.shape, b._tensor.strides)
            out._tensor._storage[:] = out_st
            return out

        return ret

    @staticmethod
    def reduce(
        fn: Callable[[float, float], float], start: float = 0.0
    ) -> Callable[["Tensor", int], "Tensor"]:
        """`start` must be an identity of `fn` (every thread starts its partial from it)."""

        def ret(a: "Tensor", dim: int) -> "Tensor":
            dim = _norm_dim(dim, a.dims)
            out_shape = list(a.shape)
            out_shape[dim] = 1
            out = a.zeros(tuple(out_shape))
            out_st = _f32(out)
            launch(_reduce_kernel, out.size, REDUCE_THREADS, fn, start, out_st, out.shape,
                   out._tensor.strides, _f32(a), a.shape, a._tensor.strides, dim)
            out._tensor._storage[:] = out_st
            return out

        return ret

    @staticmethod
    def matrix_multiply(a: "Tensor", b: "Tensor") -> "Tensor":
        out_shape = _matmul_shape(a.shape, b.shape)
        batch_shape = out_shape[:-2]
        n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
        sa, sb = a._tensor.strides, b._tensor.strides
        a_off: List[int] = []
        b_off: List[int] = []
        out_off: List[int] = []
        a_idx = [0] * (a.dims - 2)
        b_idx = [0] * (b.dims - 2)
        big = [0] * len(batch_shape)
        n_batch = 1
        for s in batch_shape:
            n_batch *= s
        for bi in range(n_batch):
            to_index(bi, batch_shape, big)
            broadcast_index(big, batch_shape, a.shape[:-2], a_idx)
            broadcast_index(big, batch_shape, b.shape[:-2], b_idx)
            a_off.append(index_to_position(a_idx, sa[:-2]))
            b_off.append(index_to_position(b_idx, sb[:-2]))
            out_off.append(bi * n * m)
        out_st = np.zeros(n_batch * n * m, dtype=np.float32)
        grid = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE, n_batch)
        launch(_matmul_kernel, grid, (TILE, TILE), out_st, out_off, _f32(a), a_off, sa[-2], sa[-1],
               _f32(b), b_off, sb[-2], sb[-1], n, k, m)
        return a._new(_td_from_array(out_st.astype(np.float64).reshape(out_shape)))

    cuda = False


SimpleBackend = TensorBackend(SimpleOps)
FastBackend = TensorBackend(NumpyOps)
SimtBackend = TensorBackend(SimtOps)
