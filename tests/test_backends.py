"""The three backends agree.

* Python (`SimpleOps`) and NumPy (`NumpyOps`): bitwise on map/zip/reduce,
  1e-12 on matmul.
* SIMT simulator (`SimtOps`, float32 kernels) vs NumPy: ~1e-6 relative.

Inputs come from the strategies, so they have permuted strides and
broadcasting shapes.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.strategies import DataObject, data, floats, integers, sampled_from

import minitorch
from minitorch import IndexingError, operators
from minitorch.cuda_kernel_ops import CudaKernelOps
from minitorch.tensor_ops import SimtOps, TensorBackend, launch
from strategies import medium_floats, positive_floats, shapes
from tensor_strategies import broadcast_tensors, matmul_tensors, tensors, with_backend

SIMPLE, FAST, SIMT = minitorch.SimpleBackend, minitorch.FastBackend, minitorch.SimtBackend
SETTINGS = settings(max_examples=30, deadline=None)
SIMT_SETTINGS = settings(max_examples=10, deadline=None)

wide_floats = sampled_from([-0.0, 0.0, 1.0, -1.0]) | floats(min_value=-40, max_value=40, allow_nan=False)

# name -> (backend attribute, input strategy)
MAPS = {
    "neg": ("neg_map", wide_floats),
    "sigmoid": ("sigmoid_map", wide_floats),
    "relu": ("relu_map", wide_floats),
    "log": ("log_map", positive_floats),
    "exp": ("exp_map", wide_floats),
    "id": ("id_map", wide_floats),
    "inv": ("inv_map", positive_floats),
    "tanh": ("tanh_map", wide_floats),
}
ZIPS = ["add_zip", "mul_zip", "lt_zip", "eq_zip", "is_close_zip", "relu_back_zip", "log_back_zip", "inv_back_zip"]
REDUCES = ["add_reduce", "mul_reduce"]


def bits(t: minitorch.Tensor) -> np.ndarray:
    """The float64 bit patterns (so -0.0 != 0.0 and NaN == NaN)."""
    return t.to_numpy().view(np.int64)


def assert_bitwise(a: minitorch.Tensor, b: minitorch.Tensor) -> None:
    assert a.shape == b.shape
    np.testing.assert_array_equal(bits(a), bits(b), err_msg=f"\n{a.to_numpy()}\n{b.to_numpy()}")


# -- Python vs NumPy: exact ---------------------------------------------------


@pytest.mark.parametrize("name", sorted(MAPS))
@SETTINGS
@given(d=data())
def test_map_python_numpy_bitwise(name, d: DataObject):
    attr, numbers = MAPS[name]
    t = d.draw(tensors(numbers))
    assert_bitwise(getattr(SIMPLE, attr)(with_backend(t, SIMPLE)), getattr(FAST, attr)(t))


@pytest.mark.parametrize("attr", ["id_map", "neg_map", "exp_map"])
@SETTINGS
@given(d=data())
def test_map_into_broadcast_out(attr, d: DataObject):
    """map(a, out): `a` is broadcast into a bigger (even non-contiguous) `out`."""
    a, big = d.draw(broadcast_tensors())
    out_shape = minitorch.shape_broadcast(a.shape, big.shape)
    outs = []
    for backend in (SIMPLE, FAST):
        out = with_backend(d.draw(tensors(shape=out_shape)), backend)
        res = getattr(backend, attr)(with_backend(a, backend), out)
        assert res is out
        outs.append(out)
    assert_bitwise(outs[0], outs[1])
    np.testing.assert_allclose(
        outs[1].to_numpy(), np.broadcast_to(getattr(np, {"id_map": "array", "neg_map": "negative", "exp_map": "exp"}[attr])(a.to_numpy()), out_shape), rtol=1e-15
    )


@pytest.mark.parametrize("attr", ZIPS)
@SETTINGS
@given(d=data())
def test_zip_python_numpy_bitwise(attr, d: DataObject):
    numbers = positive_floats if attr in ("log_back_zip", "inv_back_zip") else sampled_from([-1.5, -0.0, 0.0, 0.5, 1.0, 2.0, 1.004]) | medium_floats
    a, b = d.draw(broadcast_tensors(numbers))
    assert_bitwise(getattr(SIMPLE, attr)(with_backend(a, SIMPLE), with_backend(b, SIMPLE)), getattr(FAST, attr)(a, b))


@SETTINGS
@given(d=data(), exponent=sampled_from([2.0, 0.5, 3.0, -1.0, 1.7, 0.0]))
def test_pow_scalar_zip_python_numpy_bitwise(d: DataObject, exponent):
    """`x ** s` (the course's pow_scalar_zip): NumPy avoids its square/sqrt fast paths to equal libm's pow."""
    t = d.draw(tensors(positive_floats))
    s = minitorch.tensor([exponent])
    py = SIMPLE.pow_scalar_zip(with_backend(t, SIMPLE), with_backend(s, SIMPLE))
    assert_bitwise(py, FAST.pow_scalar_zip(t, s))
    np.testing.assert_allclose(py.to_numpy(), t.to_numpy() ** exponent, rtol=1e-15, atol=0)


@pytest.mark.parametrize("attr", REDUCES)
@SETTINGS
@given(d=data())
def test_reduce_python_numpy_bitwise(attr, d: DataObject):
    # values of very different magnitudes: any change of summation order shows
    numbers = floats(min_value=-1e6, max_value=1e6, allow_nan=False) | sampled_from([1e-9, -0.0, 3.3e5, -1.0])
    if attr == "mul_reduce":
        numbers = floats(min_value=-3, max_value=3, allow_nan=False)
    t = d.draw(tensors(numbers, shape=d.draw(shapes(max_side=6))))
    dim = d.draw(integers(min_value=0, max_value=t.dims - 1))
    py = getattr(SIMPLE, attr)(with_backend(t, SIMPLE), dim)
    fast = getattr(FAST, attr)(t, dim)
    assert fast.shape == t.shape[:dim] + (1,) + t.shape[dim + 1:]
    assert_bitwise(py, fast)


def test_reduce_is_sequential_not_pairwise():
    """1e16 + 1 + 1 + ... is 1e16 left to right; a pairwise sum would differ."""
    vals = [1e16] + [1.0] * 15 + [-1e16]
    for backend in (SIMPLE, FAST):
        t = minitorch.tensor(vals, backend=backend)
        assert backend.add_reduce(t, 0).item() == 0.0
        col = minitorch.tensor([[v] for v in vals], backend=backend)
        assert backend.add_reduce(col, 0).item() == 0.0
        mat = minitorch.tensor([[v, v] for v in vals], backend=backend)
        np.testing.assert_array_equal(backend.add_reduce(mat.permute(1, 0), 1).to_numpy(), [[0.0], [0.0]])
    assert SIMPLE.add_reduce(minitorch.tensor([-0.0, -0.0], backend=SIMPLE), 0).to_numpy().view(np.int64)[0] == 0
    assert FAST.add_reduce(minitorch.tensor([-0.0, -0.0]), 0).to_numpy().view(np.int64)[0] == 0


@SETTINGS
@given(d=data())
def test_generic_fns_python_numpy_bitwise(d: DataObject):
    """Functions NumPy does not recognise go through np.vectorize: still exact."""
    t = d.draw(tensors(medium_floats))
    a, b = d.draw(broadcast_tensors(medium_floats))
    dim = d.draw(integers(min_value=0, max_value=t.dims - 1))

    def cube(x: float) -> float:
        return x * x * x

    def f(x: float, y: float) -> float:
        return x * 0.5 - y

    for ops_fn in (
        lambda ops: ops.map(cube)(t),
        lambda ops: ops.zip(f)(a, b),
        lambda ops: ops.reduce(operators.max, -1e9)(t, dim),
        lambda ops: ops.reduce(f, 3.0)(t, dim),
        lambda ops: ops.reduce(operators.add, 2.5)(t, dim),
    ):
        res = [ops_fn(ops) for ops in (minitorch.SimpleOps, minitorch.NumpyOps)]
        assert_bitwise(res[0], res[1])


@SETTINGS
@given(matmul_tensors(medium_floats))
def test_matmul_python_numpy(pair):
    a, b = pair
    py = SIMPLE.matrix_multiply(with_backend(a, SIMPLE), with_backend(b, SIMPLE))
    fast = FAST.matrix_multiply(a, b)
    expected = np.matmul(a.to_numpy(), b.to_numpy())
    assert py.shape == fast.shape == expected.shape
    scale = np.matmul(np.abs(a.to_numpy()), np.abs(b.to_numpy()))
    np.testing.assert_array_less(np.abs(py.to_numpy() - fast.to_numpy()), 1e-12 * scale + 1e-300)


@pytest.mark.parametrize("backend", [SIMPLE, FAST, SIMT], ids=["simple", "numpy", "simt"])
def test_shape_errors(backend):
    a = minitorch.tensor([[1.0, 2.0, 3.0]] * 2, backend=backend)
    b = minitorch.tensor([[1.0, 2.0]] * 2, backend=backend)
    with pytest.raises(IndexingError, match=r"\(2, 3\).*\(2, 2\)"):
        backend.add_zip(a, b)
    with pytest.raises(IndexingError, match="do not match"):
        backend.matrix_multiply(a, a)
    with pytest.raises(IndexingError):
        backend.matrix_multiply(minitorch.tensor([1.0, 2.0], backend=backend), b)


def test_exact_numpy_exp_log_against_math():
    """The NumPy backend's exp/log/sigmoid are libm's, bit for bit."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 5, 5000), rng.uniform(-700, 700, 2000)])
    t = minitorch.tensor(x)
    np.testing.assert_array_equal(FAST.exp_map(t).to_numpy(), [math.exp(v) for v in x])
    np.testing.assert_array_equal(FAST.sigmoid_map(t).to_numpy(), [operators.sigmoid(v) for v in x])
    pos = np.abs(x) + 1e-3
    np.testing.assert_array_equal(FAST.log_map(minitorch.tensor(pos)).to_numpy(), [math.log(v) for v in pos])


def test_cuda_kernel_ops_alias():
    """llmsys files build `TensorBackend(CudaKernelOps)`; it must run (on the CPU)."""
    backend = TensorBackend(CudaKernelOps)
    a = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], backend=backend, requires_grad=True)
    out = (a @ a).sum()
    out.backward()
    np.testing.assert_allclose(out.item(), 54.0)
    np.testing.assert_allclose(a.grad.to_numpy(), [[7.0, 11.0], [9.0, 13.0]])


# -- SIMT simulator vs NumPy: ~1e-6 relative ------------------------------------


def assert_close_f32(simt: minitorch.Tensor, ref: minitorch.Tensor, scale: np.ndarray = None) -> None:
    assert simt.shape == ref.shape
    r = ref.to_numpy()
    scale = np.abs(r) if scale is None else scale
    np.testing.assert_array_less(np.abs(simt.to_numpy() - r), 2e-6 * scale + 1e-30)


@pytest.mark.parametrize("name", ["neg", "sigmoid", "relu", "log", "exp", "inv"])
@SIMT_SETTINGS
@given(d=data())
def test_simt_map(name, d: DataObject):
    attr = MAPS[name][0]
    t = d.draw(tensors(positive_floats if name in ("log", "inv") else medium_floats))
    ref = getattr(FAST, attr)(t)
    # log(1 + e) is tiny: compare it against the O(1) rounding of its input
    scale = np.abs(ref.to_numpy()) + (1.0 if name == "log" else 0.0)
    assert_close_f32(getattr(SIMT, attr)(with_backend(t, SIMT)), ref, scale)


@pytest.mark.parametrize("attr", ["add_zip", "mul_zip", "lt_zip", "log_back_zip"])
@SIMT_SETTINGS
@given(d=data())
def test_simt_zip(attr, d: DataObject):
    numbers = {"lt_zip": sampled_from([-1.5, -0.5, 0.0, 0.5, 1.0, 2.0]), "log_back_zip": positive_floats}
    a, b = d.draw(broadcast_tensors(numbers.get(attr, medium_floats)))
    ref = getattr(FAST, attr)(a, b)
    scale = np.abs(a.to_numpy()) + np.abs(b.to_numpy()) if attr == "add_zip" else np.abs(ref.to_numpy())
    assert_close_f32(getattr(SIMT, attr)(with_backend(a, SIMT), with_backend(b, SIMT)), ref, scale)


@pytest.mark.parametrize("attr", REDUCES)
@SIMT_SETTINGS
@given(d=data())
def test_simt_reduce(attr, d: DataObject):
    t = d.draw(tensors(medium_floats, shape=d.draw(shapes(max_side=12, max_dims=3))))
    dim = d.draw(integers(min_value=0, max_value=t.dims - 1))
    ref = getattr(FAST, attr)(t, dim)
    if attr == "add_reduce":  # float32 partial sums: error relative to sum |x|
        scale = np.sum(np.abs(t.to_numpy()), axis=dim, keepdims=True)
    else:
        scale = np.abs(ref.to_numpy())
    assert_close_f32(getattr(SIMT, attr)(with_backend(t, SIMT), dim), ref, scale)


@SIMT_SETTINGS
@given(matmul_tensors(medium_floats, max_side=6))
def test_simt_matmul(pair):
    a, b = pair
    ref = FAST.matrix_multiply(a, b)
    scale = np.matmul(np.abs(a.to_numpy()), np.abs(b.to_numpy()))
    assert_close_f32(SIMT.matrix_multiply(with_backend(a, SIMT), with_backend(b, SIMT)), ref, scale)


def test_simt_backprop_small_network():
    """A whole forward/backward on the simulator matches NumPy to float32 precision."""
    rng = np.random.default_rng(3)
    xs, w = rng.normal(size=(3, 5)), rng.normal(size=(5, 2))
    grads = []
    for backend in (FAST, SIMT):
        x = minitorch.tensor(xs, backend=backend)
        wt = minitorch.tensor(w, backend=backend, requires_grad=True)
        (x @ wt).sigmoid().mean().backward()
        grads.append(wt.grad.to_numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-7)


def test_launch_barrier_model():
    """A block reverses an array through shared memory: correct only with the barrier."""
    n = 8

    def reverse(ctx, out, inp):
        sh = ctx.shared_array(n)
        t = ctx.threadIdx.x
        sh[t] = inp[t]
        yield ctx.syncthreads()
        out[t] = sh[n - 1 - t]

    def reverse_racy(ctx, out, inp):  # no barrier: threads run in order, so early ones read zeros
        sh = ctx.shared_array(n)
        t = ctx.threadIdx.x
        sh[t] = inp[t]
        out[t] = sh[n - 1 - t]

    inp = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    launch(reverse, 1, n, out, inp)
    np.testing.assert_array_equal(out, inp[::-1])
    out2 = np.zeros(n, dtype=np.float32)
    launch(reverse_racy, 1, n, out2, inp)
    assert not np.array_equal(out2, inp[::-1])

    def divergent(ctx, out):
        if ctx.threadIdx.x == 0:
            return
        yield ctx.syncthreads()

    with pytest.raises(RuntimeError, match="Divergent"):
        launch(divergent, 1, 4, out)

    seen = []

    def coords(ctx, acc):
        acc.append((tuple(ctx.blockIdx), tuple(ctx.threadIdx)))

    launch(coords, (2, 3), (2, 2), seen)
    assert len(seen) == 2 * 3 * 2 * 2 == len(set(seen))


def test_simt_uses_float32():
    t = minitorch.tensor([1.0 + 1e-12, 1.0 / 3.0], backend=SIMT)
    got = SIMT.id_map(t).to_numpy()
    np.testing.assert_array_equal(got, np.array([1.0 + 1e-12, 1.0 / 3.0], dtype=np.float32).astype(np.float64))
    assert SimtOps.cuda is False
