"""Hidden probes for `ops` (run in the sandbox): every Function's forward and backward.

Each probe applies one Function directly (`F.apply`, so no other student
Function is involved) to seeded inputs: several shapes, broadcasting pairs and
non-contiguous (permuted-stride) layouts. Backward runs through the reference
autodiff with a random output gradient (for View also one with permuted strides,
as a later permute hands it). A few central differences of the student's own
forward are returned as a second opinion on the backward.
"""

import zlib

import numpy as np

import minitorch
from minitorch import tensor_functions as tf
from minitorch.tensor import Tensor
from minitorch.tensor_data import TensorData
from probekit import PROBES, capture, probe  # noqa: F401

H = 1e-6


def make(values, contiguous=True, requires_grad=True):
    """A tensor holding `values`; non-contiguous layouts are built from reference TensorData directly."""
    values = np.asarray(values, dtype=np.float64)
    if contiguous or values.ndim < 2:
        t = minitorch.tensor(values.copy())
    else:
        order = list(range(values.ndim))[::-1]  # store transposed, view back: strides are permuted
        stored = np.ascontiguousarray(values.transpose(order))
        inverse = np.argsort(order)
        data = TensorData(stored.reshape(-1).copy(), stored.shape)
        t = Tensor(data.permute(*[int(i) for i in inverse]))
    t.requires_grad_(requires_grad)
    return t


def constant(values):
    return minitorch.tensor(np.asarray(values, dtype=np.float64))


def as_list(t):
    return values_of(t).tolist()


def grads_of(inputs):
    return [None if x.grad is None else as_list(x.grad) for x in inputs]


def run_case(fn, arrays, extra=(), contiguous=True, fd_points=2, rng=None, backward=True, grad_contiguous=True):
    """Forward, backward with a random output gradient, and central differences of the forward.

    `backward=False` for a Function the course gives without a backward (IsClose):
    only the forward is the student's, so only the forward (and the input shapes) is returned.
    `grad_contiguous=False`: the output gradient has permuted strides (same values), as the gradient a
    later `permute` hands back does; the case then says so (`grad_layout`).
    """
    inputs = [make(a, contiguous) for a in arrays]
    result = {}

    def forward():
        out = fn.apply(*inputs, *[constant(e) for e in extra])
        return out

    out = capture(forward)
    kept = lambda: unchanged(inputs, arrays) and constants_kept(fn, arrays, extra)  # noqa: E731
    if not backward:
        return {"forward": out if isinstance(out, dict) else capture(lambda: as_list(out)),
                "inputs_kept": capture(kept), "input_shapes": [list(np.shape(a)) for a in arrays]}
    if isinstance(out, dict):  # the forward raised
        return {"forward": out, "backward": out}
    result["forward"] = capture(lambda: as_list(out))
    result["inputs_kept"] = capture(kept)
    # what the backward may read but not write: the inputs and the output, as the forward left them
    before = capture(lambda: [values_of(t) for t in [*inputs, out]])
    g = rng.uniform(-1.0, 1.0, size=out.shape)
    if not grad_contiguous:
        result["grad_layout"] = "permuted"
    handed = minitorch.tensor(g) if grad_contiguous else make(g, contiguous=False, requires_grad=False)

    def backward():
        out.backward(handed)
        return grads_of(inputs)

    result["backward"] = capture(backward)
    result["grad_output_kept"] = capture(lambda: unchanged([handed], [g]))
    if isinstance(before, list):
        result["saved_kept"] = capture(lambda: unchanged([*inputs, out], before))
    result["finite_differences"] = capture(lambda: central_differences(fn, arrays, extra, g, fd_points, rng))
    return result


def values_of(t):
    return np.array(t.to_numpy(), dtype=np.float64)


def constants_kept(fn, arrays, extra):
    """Whether a forward on inputs that need no gradient (where `ctx.no_grad` is set) leaves them as they were."""
    constants = [make(a, True, requires_grad=False) for a in arrays]
    fn.apply(*constants, *[constant(e) for e in extra])
    return unchanged(constants, arrays)


def unchanged(tensors, arrays):
    """Whether each tensor still holds the values it was made from: a forward that writes into its input, or a
    backward into the output gradient it is handed (which Add hands on to both inputs), changes them."""
    return all(np.array_equal(values_of(t), np.asarray(a, dtype=np.float64), equal_nan=True)
               for t, a in zip(tensors, arrays))


def central_differences(fn, arrays, extra, g, points, rng):
    """d/dx_i of sum(g * F(x)) at a few random coordinates i of every input, from F's forward only."""
    estimates = []
    for k, a in enumerate(arrays):
        a = np.asarray(a, dtype=np.float64)
        picks = []
        for _ in range(points):
            index = tuple(int(rng.integers(0, n)) for n in a.shape)

            def value(delta):
                shifted = [np.array(x, dtype=np.float64) for x in arrays]
                shifted[k][index] += delta
                ts = [make(x, True, requires_grad=False) for x in shifted]
                out = fn.apply(*ts, *[constant(e) for e in extra])
                return float(np.sum(out.to_numpy() * g))

            picks.append({"index": list(index), "estimate": (value(H) - value(-H)) / (2 * H)})
        estimates.append(picks)
    return estimates


UNARY = {
    "Neg": (tf.Neg, lambda r, s: r.uniform(-3, 3, s)),
    "Inv": (tf.Inv, lambda r, s: r.choice([-1.0, 1.0], s) * r.uniform(0.5, 2.0, s)),
    "Sigmoid": (tf.Sigmoid, lambda r, s: r.uniform(-4, 4, s)),
    "ReLU": (tf.ReLU, lambda r, s: r.choice([-1.0, 1.0], s) * r.uniform(0.1, 2.0, s)),
    "Log": (tf.Log, lambda r, s: r.uniform(0.2, 3.0, s)),
    "Exp": (tf.Exp, lambda r, s: r.uniform(-2, 2, s)),
}

SHAPES = [(5,), (3, 4), (2, 3, 4)]
PAIRS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (2, 3))]


def unary_probe(name):
    fn, draw = UNARY[name]

    def run(_):
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        cases = []
        for shape in SHAPES:
            for contiguous in (True, False):
                cases.append(run_case(fn, [draw(rng, shape)], contiguous=contiguous, rng=rng))
        return cases

    return run


for _name in UNARY:
    probe(f"op_{_name.lower()}")(unary_probe(_name))


def binary_probe(fn, draw, name, backward=True):
    def run(_):
        rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
        cases = []
        for sa, sb in PAIRS:
            for contiguous in (True, False):
                a, b = draw(rng, sa, sb)
                cases.append(run_case(fn, [a, b], contiguous=contiguous, rng=rng, backward=backward))
        return cases

    return run


def draw_any(rng, sa, sb):
    return rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)


def draw_with_ties(rng, sa, sb):
    """Values on a coarse grid, so equal and near-equal pairs occur often."""
    a = rng.integers(-2, 3, sa) * 0.5
    b = rng.integers(-2, 3, sb) * 0.5 + rng.choice([0.0, 0.0, 0.004, 0.3], sb)
    return a, b


probe("op_add")(binary_probe(tf.Add, draw_any, "add"))
probe("op_mul")(binary_probe(tf.Mul, draw_any, "mul"))
probe("op_lt")(binary_probe(tf.LT, draw_with_ties, "lt"))
probe("op_eq")(binary_probe(tf.EQ, draw_with_ties, "eq"))


@probe("op_sum")
def op_sum(_):
    rng = np.random.default_rng(31)
    cases = []
    for shape, dim in (((5,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 1), ((2, 3, 4), 2)):
        for contiguous in (True, False):
            cases.append(run_case(tf.Sum, [rng.uniform(-2, 2, shape)], extra=[[dim]], contiguous=contiguous, rng=rng))
    return cases


@probe("op_permute")
def op_permute(_):
    rng = np.random.default_rng(37)
    cases = []
    for shape, order in (((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4, 2), (3, 1, 0, 2)),
                         # a cube: a permutation applied the wrong way still fits, so it shows in the numbers
                         ((2, 2, 2), (1, 2, 0))):
        for contiguous in (True, False):
            cases.append(run_case(tf.Permute, [rng.uniform(-2, 2, shape)], extra=[list(order)],
                                  contiguous=contiguous, rng=rng))
    return cases


@probe("op_view")
def op_view(_):
    rng = np.random.default_rng(41)
    cases = []
    for shape, new in (((3, 4), (12,)), ((3, 4), (2, 6)), ((2, 3, 4), (6, 4)), ((12,), (2, 2, 3))):
        cases.append(run_case(tf.View, [rng.uniform(-2, 2, shape)], extra=[list(new)], contiguous=True, rng=rng))
    # the output gradient with permuted strides, as `x.view(...).permute(...)` hands it back: View.backward
    # must read it in logical (row-major) order, not reuse its storage as is
    for shape, new in (((3, 4), (4, 3)), ((2, 3, 4), (6, 4)), ((12,), (2, 2, 3))):
        cases.append(run_case(tf.View, [rng.uniform(-2, 2, shape)], extra=[list(new)], contiguous=True, rng=rng,
                              grad_contiguous=False))
    # a view of a non-contiguous tensor must fail like PyTorch's (or give the row-major reshape)
    values = rng.uniform(-2, 2, (3, 4))
    permuted = make(values, contiguous=False)
    outcome = capture(lambda: as_list(tf.View.apply(permuted, constant([12]))))
    raised = isinstance(outcome, dict)
    cases.append({"noncontiguous": {"raised": raised, "values": None if raised else outcome,
                                    "row_major": values.reshape(12).tolist()}})
    return cases


@probe("op_matmul")
def op_matmul(_):
    rng = np.random.default_rng(43)
    cases = []
    for sa, sb in (((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 2)), ((1, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 3)),
                   # square: a gradient without the transpose still fits, so it shows in the numbers
                   ((3, 3), (3, 3))):
        for contiguous in (True, False):
            cases.append(
                run_case(tf.MatMul, [rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)], contiguous=contiguous, rng=rng)
            )
    return cases
