"""`Tensor`: an n-dimensional array that records the computation that produced it.

A tensor created with `requires_grad=True` is a *leaf*: `backward()` fills its
`.grad`. A tensor without history is a *constant*. Every other tensor is the
output of a `Function` and remembers it in `history` (function, saved
context, inputs), which is all `autodiff.backpropagate` needs.

Tensors override `==` (elementwise), so they are unhashable: graph
bookkeeping is keyed by `unique_id`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, List, Optional, Sequence, Tuple, Type, Union

import numpy as np

from . import autodiff, operators  # noqa: F401  (the course's tensor module has `operators`)
from .autodiff import Context, Variable, backpropagate  # noqa: F401  (and `backpropagate`)
from .tensor_data import IndexingError, TensorData, _broadcast_shapes, _td_from_array, shape_broadcast  # noqa: F401
# Only the names every llmsys/minitorch `tensor_functions.py` defines: a
# student's whole file may be swapped in for the reference one.
from . import tensor_functions as _tf
from .tensor_functions import (
    EQ,
    LT,
    Add,
    All,
    Copy,
    Exp,
    Function,
    Inv,
    IsClose,
    Log,
    MatMul,
    Mul,
    Neg,
    Permute,
    ReLU,
    Sigmoid,
    Sum,
    View,
)
from .tensor_ops import FastBackend, TensorBackend

if TYPE_CHECKING:
    from .tensor_data import Shape, Storage, Strides, UserIndex, UserShape, UserStrides

    TensorLike = Union[float, int, "Tensor"]


#: names the course's tensor.py imports from its tensor_functions (a student file may import them from here);
#: looked up when asked (PEP 562), as the tensor_functions module may be the student's own
_FROM_TENSOR_FUNCTIONS = ("PowerScalar", "Tanh", "datatype", "tensor", "tensor_from_numpy", "zeros_tensor_from_numpy")


def __getattr__(name: str) -> Any:
    if name in _FROM_TENSOR_FUNCTIONS:
        return getattr(_tf, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _tensor_function(name: str) -> Type[Function]:
    """A Function class of the (possibly student-supplied) tensor_functions module, by name."""
    fn = getattr(_tf, name, None)
    if fn is None:
        raise NotImplementedError(f"minitorch.tensor_functions defines no {name}.")
    return fn


@dataclass
class History:
    """How a Tensor was made: the Function, its saved context and its inputs.

    A leaf has a history with `last_fn=None`; a constant has no history at all.
    """

    last_fn: Optional[Type[Function]] = None
    ctx: Optional[Context] = None
    inputs: Sequence["Tensor"] = ()


_ids = itertools.count(1)
_F64 = np.float64


class Tensor:
    """A tensor in a computation graph (see the module docstring).

    Args:
        v: the data (storage, shape, strides)
        back: the history (None for a constant, `History()` for a leaf)
        name: an optional name (defaults to the unique id)
        backend: the `TensorBackend` running the operations (default: NumPy)
    """

    backend: TensorBackend
    history: Optional[History]
    grad: Optional["Tensor"]
    _tensor: TensorData
    unique_id: int

    def __init__(
        self,
        v: TensorData,
        back: Optional[History] = None,
        name: Optional[str] = None,
        backend: Optional[TensorBackend] = None,
    ):
        assert v.__class__ is TensorData or isinstance(v, TensorData), f"Tensor needs a TensorData, got {type(v)}"
        self.unique_id = next(_ids)
        self._tensor = v
        self.history = back
        if backend is None:
            backend = FastBackend
        self.backend = backend
        self.f = backend
        self.grad = None
        if name is not None:
            self._name = name

    __hash__ = None  # type: ignore[assignment]  # == is elementwise: key graphs by unique_id

    # NumPy defers to the Tensor operators: `np.float64(0.5) * t` is a Tensor,
    # not an array built through `__array__`.
    __array_ufunc__ = None

    @property
    def name(self) -> str:
        return self.__dict__.get("_name") or str(self.unique_id)

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    # -- gradient bookkeeping ----------------------------------------------

    def requires_grad_(self, x: bool) -> None:
        """Make this tensor a leaf that collects `.grad` (`True`) or a constant (`False`)."""
        if x:
            if not self.is_leaf():
                self.history = History()
        else:
            self.history = None

    def requires_grad(self) -> bool:
        """True unless this tensor is a constant."""
        return self.history is not None

    def zero_grad_(self) -> None:
        """Forget the accumulated gradient (`grad = None`)."""
        self.grad = None

    # -- conversions ---------------------------------------------------------

    def to_numpy(self) -> np.ndarray:
        """A C-contiguous NumPy copy of the values."""
        return np.array(self._tensor.array, dtype=np.float64, order="C")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.to_numpy()
        return arr if dtype is None else arr.astype(dtype)

    @staticmethod
    def _from_numpy(
        arr: np.ndarray, backend: TensorBackend = FastBackend, requires_grad: bool = False
    ) -> "Tensor":
        """A tensor holding a copy of `arr`."""
        t = Tensor(TensorData._from_array(np.array(arr, dtype=_F64, order="C")), backend=backend)
        if requires_grad:
            t.requires_grad_(True)
        return t

    @property
    def shape(self) -> Tuple[int, ...]:
        return self._tensor.shape

    @property
    def size(self) -> int:
        return self._tensor.size

    @property
    def dims(self) -> int:
        return self._tensor.dims

    def _const(self, b: float) -> "Tensor":
        arr = np.empty(1, dtype=_F64)
        arr[0] = b
        return _constant(TensorData._from_array(arr), self.backend)

    def _ints_tensor(self, values: Sequence[int]) -> "Tensor":
        """A constant 1-D tensor holding small ints (dims, shapes, orders)."""
        return _constant(TensorData._from_array(np.array(values, dtype=_F64)), self.backend)

    def _ensure_tensor(self, b: "TensorLike") -> "Tensor":
        """Turn a number into a constant tensor of shape (1,); tensors pass through."""
        if isinstance(b, Tensor):
            return b
        if isinstance(b, (int, float, np.number)):
            return self._const(b)
        return Tensor._from_numpy(np.asarray(b, dtype=_F64), backend=self.backend)

    # -- arithmetic ----------------------------------------------------------

    def __add__(self, b: "TensorLike") -> "Tensor":
        return Add.apply(self, b if isinstance(b, Tensor) else self._ensure_tensor(b))

    def __radd__(self, b: "TensorLike") -> "Tensor":
        """`b + self` as the course builds it: `self + b` (self is the first input)."""
        return self + b

    def __sub__(self, b: "TensorLike") -> "Tensor":
        if isinstance(b, (int, float)):
            return Add.apply(self, self._const(-b))  # x + (-b) == x - b exactly
        return Add.apply(self, Neg.apply(self._ensure_tensor(b)))

    def __mul__(self, b: "TensorLike") -> "Tensor":
        return Mul.apply(self, b if isinstance(b, Tensor) else self._ensure_tensor(b))

    def __rmul__(self, b: "TensorLike") -> "Tensor":
        """`b * self` as the course builds it: `self * b` (self is the first input)."""
        return self * b

    def __pow__(self, b: "TensorLike") -> "Tensor":
        """Elementwise $x^b$ for a number `b` or a 1-D tensor `b` (`PowerScalar`)."""
        fn = _tensor_function("PowerScalar")
        if isinstance(b, (int, float, np.number)):
            return fn.apply(self, self._const(b))
        if isinstance(b, Tensor) and len(b.shape) == 1:
            return fn.apply(self, b)
        raise NotImplementedError(f"Tensor ** {type(b).__name__}: the exponent must be a number or a 1-D tensor.")

    def __truediv__(self, b: "TensorLike") -> "Tensor":
        if isinstance(b, (int, float)) and b != 0:
            return Mul.apply(self, self._const(1.0 / b))  # == x * inv(b) exactly
        return Mul.apply(self, Inv.apply(self._ensure_tensor(b)))

    def __rtruediv__(self, b: "TensorLike") -> "Tensor":
        return Mul.apply(self._ensure_tensor(b), Inv.apply(self))

    def __matmul__(self, b: "Tensor") -> "Tensor":
        return MatMul.apply(self, b if isinstance(b, Tensor) else self._ensure_tensor(b))

    def __lt__(self, b: "TensorLike") -> "Tensor":
        return LT.apply(self, self._ensure_tensor(b))

    def __gt__(self, b: "TensorLike") -> "Tensor":
        return LT.apply(self._ensure_tensor(b), self)

    def __eq__(self, b: "TensorLike") -> "Tensor":  # type: ignore[override]
        return EQ.apply(self, self._ensure_tensor(b))

    def __neg__(self) -> "Tensor":
        return Neg.apply(self)

    def all(self, dim: Optional[int] = None) -> "Tensor":
        """1.0 if every element (along `dim`) is nonzero."""
        if dim is None:
            return All.apply(self.contiguous().view(self.size), self._const(0))
        return All.apply(self, self._const(self._dim(dim)))

    def is_close(self, y: "TensorLike") -> "Tensor":
        """Elementwise $|x - y| < 10^{-2}$ as 1.0/0.0."""
        return IsClose.apply(self, self._ensure_tensor(y))

    def sigmoid(self) -> "Tensor":
        return Sigmoid.apply(self)

    def relu(self) -> "Tensor":
        return ReLU.apply(self)

    def log(self) -> "Tensor":
        return Log.apply(self)

    def exp(self) -> "Tensor":
        return Exp.apply(self)

    def tanh(self) -> "Tensor":
        return _tensor_function("Tanh").apply(self)

    def item(self) -> float:
        """The value of a 1-element tensor as a float."""
        if self.size != 1:
            raise ValueError(
                f"item() needs a tensor with one element, got shape {self.shape}."
            )
        return float(self._tensor._storage[0])

    def _dim(self, dim: int) -> int:
        d = int(dim)
        if d < 0:
            d += self.dims
        if not 0 <= d < self.dims:
            raise IndexingError(f"Dimension {dim} out of range for shape {self.shape}.")
        return d

    def sum(self, dim: Optional[int] = None) -> "Tensor":
        """Sum over `dim` (kept with size 1), or over all elements (shape (1,))."""
        if dim is None:
            return Sum.apply(self.contiguous().view(self.size), self._const(0))
        return Sum.apply(self, self._const(self._dim(dim)))

    def mean(self, dim: Optional[int] = None) -> "Tensor":
        """Mean over `dim` (kept with size 1), or over all elements (shape (1,))."""
        mean_fn = getattr(_tf, "Mean", None)
        if mean_fn is None:  # a tensor_functions.py without the Mean helper
            if dim is None:
                return self.sum() / self.size
            return self.sum(dim) / self.shape[self._dim(dim)]
        if dim is None:
            return mean_fn.apply(self)
        return mean_fn.apply(self, self._const(self._dim(dim)))

    def var(self, dim: Optional[int] = None) -> "Tensor":
        r"""Population variance $\frac1n \sum_i (x_i - \bar x)^2$ over `dim` (kept with size 1),
        or over every element (shape (1,)), as the course's `Tensor.var`."""
        if dim is not None:
            n = self.shape[self._dim(dim)]
            mean = (self.sum(dim) / n).contiguous()
            return ((self - mean) ** 2).sum(dim) / n
        mean = (self.sum() / self.size).contiguous().view(*([1] * self.dims))
        return ((self - mean) ** 2).sum() / self.size

    def permute(self, *order: Union[int, Sequence[int]]) -> "Tensor":
        """A view with dims reordered: new dim `i` is old dim `order[i]`."""
        if len(order) == 1 and isinstance(order[0], (tuple, list)):
            order = tuple(order[0])
        return Permute.apply(self, self._ints_tensor([self._dim(o) for o in order]))

    def view(self, *shape: Union[int, Sequence[int]]) -> "Tensor":
        """The same (contiguous) storage with another shape; one entry may be -1."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(map(int, shape))
        if -1 in shape:
            known = 1
            for s in shape:
                if s != -1:
                    known *= s
            if shape.count(-1) > 1 or known == 0 or self.size % known:
                raise IndexingError(f"shape {list(shape)} is invalid for input of size {self.size}")
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        size = 1
        for s in shape:
            size *= s
        if size != self.size:
            raise IndexingError(f"shape {list(shape)} is invalid for input of size {self.size}")
        return View.apply(self, self._ints_tensor(shape))

    def contiguous(self) -> "Tensor":
        """A contiguous tensor with the same values (self if already contiguous)."""
        if self._tensor.is_contiguous():
            return self
        return Copy.apply(self)

    def __repr__(self) -> str:
        return self._tensor.to_string()

    def __getitem__(self, key: Union[int, "UserIndex"]) -> float:
        key2 = (key,) if isinstance(key, (int, np.integer)) else key
        return self._tensor.get(key2)

    def __setitem__(self, key: Union[int, "UserIndex"], val: float) -> None:
        key2 = (key,) if isinstance(key, (int, np.integer)) else key
        self._tensor.set(key2, val)

    # -- internals -------------------------------------------------------------

    def _type_(self, backend: TensorBackend) -> None:
        self.backend = backend
        self.f = backend
        if backend.cuda:  # pragma: no cover
            self._tensor.to_cuda_()

    def _new(self, tensor_data: TensorData) -> "Tensor":
        # _constant(tensor_data, self.backend), inlined: every backend op's result is made here
        t = _new_tensor(Tensor)
        t.unique_id = next(_ids)
        t._tensor = tensor_data
        t.history = None
        t.backend = t.f = self.backend
        t.grad = None
        return t

    @staticmethod
    def make(
        storage: Union["Storage", List[float]],
        shape: "UserShape",
        strides: Optional["UserStrides"] = None,
        backend: Optional[TensorBackend] = None,
    ) -> "Tensor":
        """A new constant tensor from raw storage (shared if it is a float64 array)."""
        return Tensor(TensorData(storage, shape, strides), None, None, backend)

    def expand(self, other: "Tensor") -> "Tensor":
        """Bring `other` (a gradient) to `self.shape`.

        If `other` is smaller it is broadcast up; if it is the broadcast of
        `self.shape` (extra or size-1 dims of `self` that grew) it is summed over
        those dims. This is how broadcasting inputs receive their gradients.
        """
        shape, other_shape = self._tensor.shape, other._tensor.shape
        if shape == other_shape:
            return other
        true_shape = _broadcast_shapes(shape, other_shape)
        if other_shape == true_shape:
            out = other
        else:
            out = self.zeros(true_shape)
            self.backend.id_map(other, out)
            if shape == true_shape:
                return out
        orig_shape = (1,) * (len(true_shape) - len(shape)) + shape
        for dim, size in enumerate(true_shape):
            if orig_shape[dim] == 1 and size != 1:
                out = self.backend.add_reduce(out, dim)
        assert out.size == self.size, f"{out.shape} {self.shape}"
        if not out._tensor.is_contiguous():
            out = self.backend.id_map(out)
        # the summed values in `self`'s shape (a view of out's contiguous storage)
        return _constant(_td_from_array(out._tensor.array.reshape(shape)), self.backend)

    def zeros(self, shape: Optional["UserShape"] = None) -> "Tensor":
        """A constant tensor of zeros (default: this tensor's shape) on the same backend."""
        shp = self.shape if shape is None else tuple(int(s) for s in shape)
        return _constant(TensorData._from_array(np.zeros(shp, dtype=_F64)), self.backend)

    def tuple(self) -> Tuple["Storage", "Shape", "Strides"]:
        return self._tensor.tuple()

    def detach(self) -> "Tensor":
        """The same data without history (a constant)."""
        return _constant(self._tensor, self.backend)

    # -- Variable protocol --------------------------------------------------

    def accumulate_derivative(self, x: Any) -> None:
        """Add `x` to `.grad` (leaves only): `grad = x` the first time, then `grad + x`."""
        assert self.is_leaf(), "Only leaf variables can have derivatives."
        if not isinstance(x, Tensor):
            x = self._ensure_tensor(x)
        if x._tensor.shape != self._tensor.shape:
            x = self.expand(x)
        if self.grad is None:
            self.grad = x if x.history is None else x.detach()
        else:
            self.grad = self.backend.add_zip(self.grad, x)

    def is_leaf(self) -> bool:
        """True if this variable was created by the user (no `last_fn`)."""
        return self.history is not None and self.history.last_fn is None

    def is_constant(self) -> bool:
        """True if this variable needs no gradient (no history)."""
        return self.history is None

    @property
    def parents(self) -> Iterable[Variable]:
        assert self.history is not None
        return self.history.inputs

    def chain_rule(self, d_output: Any) -> Iterable[Tuple[Variable, Any]]:
        r"""Pairs $(x_i, \bar v\, \partial f / \partial x_i)$ for every input (constants included).

        Each gradient is brought to its input's shape with `expand`.
        """
        h = self.history
        assert h is not None
        assert h.last_fn is not None
        assert h.ctx is not None

        x = h.last_fn._backward(h.ctx, d_output)
        assert len(x) == len(h.inputs), f"Bug in function {h.last_fn}"
        pairs = []
        for inp, d_in in zip(h.inputs, x):
            if not isinstance(d_in, Tensor):
                d_in = self._ensure_tensor(d_in)
            # expand(d_in) is d_in itself when the shapes agree
            pairs.append((inp, d_in if d_in._tensor.shape == inp._tensor.shape else inp.expand(d_in)))
        return pairs

    def backward(self, grad_output: Optional["TensorLike"] = None) -> None:
        """Backpropagate from this tensor, filling `.grad` on the leaves.

        Args:
            grad_output: $\\partial L / \\partial\\, \\mathrm{self}$; may be omitted
                only for a 1-element tensor (then 1.0).
        """
        if self.history is None:
            raise RuntimeError("backward() on a tensor that does not require grad (a constant).")
        if grad_output is None:
            if self.size != 1:
                raise RuntimeError(
                    f"backward() needs an explicit grad_output for a tensor of shape "
                    f"{self.shape}; only 1-element tensors default to 1.0."
                )
            grad_output = Tensor(TensorData._from_array(np.ones(self.shape, dtype=_F64)), backend=self.backend)
        else:
            grad_output = self._ensure_tensor(grad_output)
            if grad_output.shape != self.shape:
                grad_output = self.expand(grad_output)
        autodiff.backpropagate(self, grad_output)


_new_tensor = object.__new__


def _constant(td: TensorData, backend: TensorBackend) -> Tensor:
    """`Tensor(td, None, None, backend)`, without the constructor's call and checks (internal: `td` is a
    TensorData). Sets the attributes `Tensor.__init__` sets, in the same order."""
    t = _new_tensor(Tensor)
    t.unique_id = next(_ids)
    t._tensor = td
    t.history = None
    t.backend = t.f = backend
    t.grad = None
    return t
