"""mini_tf, the TF1-style static graph: lazy evaluation, symbolic gradients, training.

Oracles: torch (float64 autograd) for gradients and for logistic regression, and
the minitorch dynamic graph (minitorch Tensors) for the same 50 training steps.
"""

import sys

import numpy as np
import pytest
import torch

import minitorch
from minitorch import mini_tf as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    """Every test builds into its own default graph."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def count_kernel_calls(monkeypatch):
    """Wrap every kernel so that a test can count how often each op type really ran."""
    calls = {}
    for op_type, opdef in list(tf._OPS.items()):
        def counting(node, values, _kernel=opdef.kernel):
            calls[node.name] = calls.get(node.name, 0) + 1
            return _kernel(node, values)

        monkeypatch.setitem(tf._OPS, op_type, tf._OpDef(counting, opdef.grad))
    return calls


# Lazy evaluation: only what a fetch needs, each node once ------------------------


def test_only_the_needed_nodes_are_evaluated_each_once(count_kernel_calls):
    x = tf.placeholder((None, 2), name="x")
    z = tf.placeholder((None, 2), name="z")  # only the expensive branch needs it
    a = tf.exp(x, name="a")
    d = tf.add(a * 2.0, a * 3.0, name="d")  # a has two users: still evaluated once
    e = z
    for i in range(200):
        e = tf.exp(-tf.square(e), name=f"expensive_{i}")
    tf.add(d, e, name="both")

    out = None
    with tf.Session() as sess:
        out = sess.run(d, {x: [[0.0, 1.0]]})  # z not fed: fine, it is not needed
        evaluated = sess.last_run_evaluated
    np.testing.assert_allclose(out, 5.0 * np.exp([[0.0, 1.0]]), rtol=1e-15)
    assert sorted(evaluated) == sorted(["a", "Const", "Mul", "Const_1", "Mul_1", "d"])
    assert len(evaluated) == len(set(evaluated))
    # the instrumentation agrees with the kernels that actually ran
    assert count_kernel_calls == {"a": 1, "Mul": 1, "Mul_1": 1, "d": 1}
    assert not any(name.startswith("expensive") for name in count_kernel_calls)


def test_order_is_topological():
    x = tf.placeholder((3,), name="x")
    y = tf.exp(x) * tf.log(tf.square(x) + 1.0) - x
    with tf.Session() as sess:
        sess.run(y, {x: [1.0, 2.0, 3.0]})
        position = {name: i for i, name in enumerate(sess.last_run_evaluated)}
    for node in tf.get_default_graph().get_operations():
        if node.name in position:
            for inp in node.inputs:
                if inp.op_type != "Placeholder":
                    assert position[inp.name] < position[node.name]


def test_needed_placeholder_not_fed_raises_a_clear_error():
    x = tf.placeholder((None, 2), name="x")
    w = tf.placeholder((2,), name="w")
    y = tf.reduce_sum(x * w)
    with tf.Session() as sess:
        missing_x = "You must feed a value for placeholder 'x'"
        with pytest.raises(tf.InvalidArgumentError, match=missing_x):
            sess.run(y, {w: [1.0, 2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder 'w'"):
            sess.run(y, {x: [[1.0, 2.0]]})
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 2.0], [3.0, 4.0]], w: [1.0, 2.0]}), 16.0)


def test_feeding_a_wrong_shape_raises_a_clear_error():
    x = tf.placeholder((None, 2), name="x")
    y = tf.reduce_sum(x)
    with tf.Session() as sess:
        message = r"Cannot feed value of shape \(3,\) for placeholder 'x', which has shape \(None, 2\)"
        with pytest.raises(ValueError, match=message):
            sess.run(y, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(y, {x: np.ones((4, 3))})
        np.testing.assert_allclose(sess.run(y, {x: np.ones((7, 2))}), 14.0)  # None matches any size


def test_fetch_structures_and_names():
    x = tf.placeholder((2,), name="x")
    y = tf.square(x, name="y")
    s = tf.reduce_sum(y, name="s")
    g = tf.group(y, s)
    with tf.Session() as sess:
        feed = {x: [1.0, 3.0]}
        res = sess.run({"y": y, "pair": (s, [y, "s"]), "op": g}, feed)
        assert set(res) == {"y", "pair", "op"} and res["op"] is None
        assert isinstance(res["pair"], tuple) and isinstance(res["pair"][1], list)
        np.testing.assert_allclose(res["y"], [1.0, 9.0])
        np.testing.assert_allclose([res["pair"][0], res["pair"][1][1]], [10.0, 10.0])
        assert isinstance(sess.run(s, feed), np.float64)
        np.testing.assert_allclose(sess.run("y:0", feed), [1.0, 9.0])
        assert sess.last_run_evaluated == ["y"]
        # feeding an inner node replaces its computation
        np.testing.assert_allclose(sess.run(s, {y: [5.0, 6.0]}), 11.0)
        assert sess.last_run_evaluated == ["s"]


# Building is not computing ----------------------------------------------------------


def test_static_shapes_and_build_time_errors():
    x = tf.placeholder((None, 3), name="x")
    b = tf.constant(np.zeros(3))
    W = tf.constant(np.zeros((3, 4)))
    assert (x + b).shape == (None, 3)
    assert tf.matmul(x, W).shape == (None, 4)
    assert tf.reduce_mean(x, axis=0).shape == (3,)
    assert tf.reduce_sum(x, axis=1, keepdims=True).shape == (None, 1)
    assert tf.transpose(tf.reshape(W, (2, -1))).shape == (6, 2)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        x + tf.constant(np.zeros(4))
    with pytest.raises(ValueError, match="inner dimensions"):
        tf.matmul(W, W)
    with pytest.raises(TypeError, match="Python bool"):
        bool(x)


def test_graphs_are_separate_and_names_unique():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder((), name="a")
        a2 = tf.placeholder((), name="a")
        c = a + a2
        assert tf.get_default_graph() is g
    assert tf.get_default_graph() is not g
    assert (a.name, a2.name) == ("a", "a_1") and c.graph is g
    with pytest.raises(ValueError, match="another graph"):
        tf.placeholder((), name="b") + a
    with tf.Session(g) as sess:
        assert c.eval({a: 1.0, a2: 2.0}) == 3.0
        assert sess.graph is g
    with tf.name_scope("layer"):
        W = tf.Variable([1.0], name="W")
        y = W * 2.0
    assert (W.name, W.initializer.name, y.name) == ("layer/W", "layer/W/Assign", "layer/Mul")
    assert tf.get_default_graph().get_node("layer/Mul:0") is y


# Variables ------------------------------------------------------------------------


def test_variables_initialization_assignment_and_per_session_state():
    v = tf.Variable([1.0, 2.0], name="v")
    step = tf.assign(v, v * 10.0)
    init = tf.global_variables_initializer()
    with tf.Session() as s1, tf.Session() as s2:
        with pytest.raises(tf.FailedPreconditionError, match="uninitialized value 'v'"):
            s1.run(v)
        s1.run(init)
        s2.run(init)
        new, old = s1.run([step, v])  # reads in a run see the value from its start
        np.testing.assert_allclose(new, [10.0, 20.0])
        np.testing.assert_allclose(old, [1.0, 2.0])
        np.testing.assert_allclose(s1.run(v), [10.0, 20.0])
        _, before = s1.run([tf.assign(v, [0.0, 0.0]), v])  # even when the assign runs first
        np.testing.assert_allclose(before, [10.0, 20.0])
        np.testing.assert_allclose(s1.run(v), [0.0, 0.0])
        s1.run(step.graph.get_node("v/Assign"))  # v.initializer
        np.testing.assert_allclose(s1.run(v), [1.0, 2.0])
        s1.run(step)
        np.testing.assert_allclose(s2.run(v), [1.0, 2.0])  # another session, another state
        fetched = s1.run(v)
        fetched[0] = -1.0  # a copy: the session state is unaffected
        np.testing.assert_allclose(s1.run(v), [10.0, 20.0])
    with pytest.raises(ValueError, match="cannot assign"):
        tf.assign(v, tf.constant([1.0, 2.0, 3.0]))


# Symbolic gradients against torch (float64) --------------------------------------


class TorchOps:
    """The subset of the mini_tf API used below, on torch tensors."""

    sigmoid, exp, log, relu, square = torch.sigmoid, torch.exp, torch.log, torch.relu, torch.square

    @staticmethod
    def matmul(a, b):
        return a @ b

    @staticmethod
    def reduce_sum(x, axis=None, keepdims=False):
        return x.sum() if axis is None else x.sum(dim=axis, keepdim=keepdims)

    @staticmethod
    def reduce_mean(x, axis=None, keepdims=False):
        return x.mean() if axis is None else x.mean(dim=axis, keepdim=keepdims)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def transpose(x, perm=None):
        return x.permute(*(perm if perm is not None else reversed(range(x.dim()))))


GRAPHS = {
    "bias_add_onto_matrix": (
        lambda F, X, W, b: F.reduce_mean(F.sigmoid(F.matmul(X, W) + b)),
        [(5, 3), (3, 4), (4,)],
    ),
    "broadcast_both_sides": (
        lambda F, a, c: F.reduce_sum(a * c + a / (c * c + 1.0) - c * 2.0),
        [(4, 1), (1, 3)],
    ),
    "fan_out_non_scalar_output": (
        lambda F, x: x * x + x * F.exp(x) - x / (F.square(x) + 1.0) + x,
        [(3, 2)],
    ),
    "sigmoid_log_exp": (
        lambda F, x, y: F.reduce_sum(
            F.log(F.sigmoid(x) + 1.0) * F.exp(-y) + F.log(F.square(y) + 0.5)
        ),
        [(2, 3), (2, 3)],
    ),
    "reduce_axes": (
        lambda F, x: F.reduce_mean(
            F.reduce_mean(x * x, axis=0) * F.reduce_sum(F.exp(x), axis=1, keepdims=True)
        ),
        [(4, 3)],
    ),
    "reshape_transpose_matmul_relu": (
        lambda F, x, W: F.reduce_sum(F.relu(F.matmul(F.transpose(F.reshape(x, (3, 4))), W) - 0.1)),
        [(2, 6), (3, 2)],
    ),
    "scalar_and_sub_neg_div": (
        lambda F, x, s: -F.reduce_mean(x * s - s / (x * x + 1.0)) - (1.0 - s) / (s * s + 2.0),
        [(3,), ()],
    ),
    "two_layer_net": (
        lambda F, X, W1, b1, W2, b2: F.reduce_mean(
            F.log(F.sigmoid(F.matmul(F.relu(F.matmul(X, W1) + b1), W2) + b2))
        ),
        [(6, 3), (3, 5), (5,), (5, 2), (2,)],
    ),
}


@pytest.mark.parametrize("known_shapes", [True, False], ids=["static_shapes", "unknown_dims"])
@pytest.mark.parametrize("case", sorted(GRAPHS))
def test_gradients_equal_torch(case, known_shapes):
    fn, shapes = GRAPHS[case]
    rng = np.random.default_rng(sorted(GRAPHS).index(case))
    values = [rng.normal(size=s) for s in shapes]

    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    t_out = fn(TorchOps, *ts)
    t_out.backward(torch.ones_like(t_out))

    xs = [
        tf.placeholder(s if known_shapes else (None,) * len(s), name=f"in{i}")
        for i, s in enumerate(shapes)
    ]
    y = fn(tf, *xs)
    n_before = len(tf.get_default_graph())
    grads = tf.gradients(y, xs)
    assert len(tf.get_default_graph()) > n_before  # gradient nodes were added ...
    assert all(isinstance(g, tf.Node) for g in grads)
    with tf.Session() as sess:
        feed = dict(zip(xs, values))
        out, *g_vals = sess.run([y] + grads, feed)
    np.testing.assert_allclose(out, t_out.detach().numpy(), rtol=1e-12, atol=1e-14)
    for g, t, v in zip(g_vals, ts, values):
        assert np.shape(g) == v.shape
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_gradients_computes_nothing_and_handles_unrelated_xs(count_kernel_calls):
    x = tf.placeholder((3,), name="x")
    u = tf.placeholder((3,), name="u")
    y1 = tf.reduce_sum(tf.exp(x))
    y2 = tf.reduce_sum(x * x)
    gx, gu = tf.gradients([y1, y2], [x, u])
    assert gu is None  # like TF1: no path from u to the ys
    assert count_kernel_calls == {}  # building gradients ran no kernel
    v = np.array([0.5, -1.0, 2.0])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(gx, {x: v}), np.exp(v) + 2 * v, rtol=1e-14)
        (g_seeded,) = tf.gradients(tf.exp(x), x, grad_ys=tf.constant([1.0, 0.0, 2.0]))
        np.testing.assert_allclose(sess.run(g_seeded, {x: v}), np.exp(v) * [1.0, 0.0, 2.0])
    with pytest.raises(LookupError, match="No gradient"):
        w = tf.Variable(np.zeros(3), name="w")
        tf.gradients(tf.reduce_sum(tf.assign(w, x)), x)


@pytest.mark.parametrize("depth", [3000, 10000])
def test_deep_chain_runs_and_differentiates_without_recursion(depth):
    assert depth > sys.getrecursionlimit()  # a recursive traversal would die here
    x = tf.placeholder((2,), name="x")
    y = x
    for _ in range(depth):
        y = y * 1.0001 + 0.0  # two nodes per step
    (g,) = tf.gradients(tf.reduce_sum(y), x)
    with tf.Session() as sess:
        y_val, g_val = sess.run([y, g], {x: [1.0, -2.0]})
        assert len(sess.last_run_evaluated) > 2 * depth
    np.testing.assert_allclose(y_val, np.array([1.0, -2.0]) * 1.0001**depth, rtol=1e-11)
    np.testing.assert_allclose(g_val, [1.0001**depth] * 2, rtol=1e-11)


# Constant folding -------------------------------------------------------------------


def build_folding_graph():
    x = tf.placeholder((None, 2), name="x")
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="c")
    scale = tf.exp(tf.constant(0.5)) + tf.log(tf.constant(3.0)) * 4.0  # constants only
    m = tf.reduce_sum(tf.matmul(c, tf.transpose(c)), axis=0)  # constants only
    y = tf.matmul(x * scale, c) + m
    return x, y


def test_constant_folding_reduces_evaluations_and_keeps_values(count_kernel_calls):
    x, y = build_folding_graph()
    n_nodes = len(tf.get_default_graph())
    feed = {x: [[1.0, -1.0], [0.5, 2.0]]}
    with tf.Session(constant_folding=False) as plain:
        expected = plain.run(y, feed)
        plain_evaluated = list(plain.last_run_evaluated)
    count_kernel_calls.clear()
    with tf.Session() as folding:
        first = folding.run(y, feed)
        folded = list(folding.last_run_folded)
        first_evaluated = list(folding.last_run_evaluated)
        calls_first = dict(count_kernel_calls)
        count_kernel_calls.clear()
        second = folding.run(y, feed)
        second_evaluated = list(folding.last_run_evaluated)
    scale = np.exp(0.5) + np.log(3.0) * 4.0
    c = np.array([[1.0, 2.0], [3.0, 4.0]])
    oracle = (np.array(feed[x]) * scale) @ c + (c @ c.T).sum(axis=0)
    np.testing.assert_allclose(expected, oracle, rtol=1e-14)
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(second, expected)
    assert sorted(folded) == ["Add", "Sum"]  # the roots of the two constant subgraphs
    assert len(plain_evaluated) == 14
    assert sorted(first_evaluated) == sorted(["Add", "Sum", "c", "Mul_1", "MatMul_1", "Add_1"])
    assert second_evaluated == first_evaluated
    assert calls_first["Exp"] == 1  # folding evaluated the constant subgraph once ...
    assert "Exp" not in count_kernel_calls  # ... and the next run did not
    assert len(tf.get_default_graph()) == n_nodes  # the user's graph is unchanged


def test_feeding_inside_a_folded_subgraph_is_honoured():
    x, y = build_folding_graph()
    graph = tf.get_default_graph()
    feed = {x: [[1.0, 0.0]]}
    with tf.Session() as sess:
        sess.run(y, feed)
        assert "Add" in sess.folded_nodes
        new = sess.run(y, {**feed, graph.get_node("Const"): 3.0})  # exp(3) instead of exp(.5)
    scale = np.exp(3.0) + np.log(3.0) * 4.0
    c = np.array([[1.0, 2.0], [3.0, 4.0]])
    expected = (np.array([[1.0, 0.0]]) * scale) @ c + (c @ c.T).sum(axis=0)
    np.testing.assert_allclose(new, expected, rtol=1e-14)


# Training: logistic regression, static graph vs torch vs the minitorch dynamic graph --


STEPS, LR = 50, 0.5


def logistic_data():
    rng = np.random.default_rng(11868)
    X = rng.normal(size=(40, 3))
    noise = 0.5 * rng.normal(size=(40, 1))
    y = (X @ np.array([[1.5], [-2.0], [0.5]]) + 0.3 + noise > 0).astype(float)
    return X, y, rng.normal(size=(3, 1)) * 0.1, np.array([0.05])


def train_mini_tf():
    X, y, W0, b0 = logistic_data()
    x = tf.placeholder((None, 3), name="x")
    t = tf.placeholder((None, 1), name="t")
    W = tf.Variable(W0, name="W")
    b = tf.Variable(b0, name="b")
    p = tf.sigmoid(tf.matmul(x, W) + b)
    loss = -tf.reduce_mean(t * tf.log(p) + (1.0 - t) * tf.log(1.0 - p))
    train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss)
    losses, weights = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(STEPS):
            _, loss_val = sess.run([train_op, loss], {x: X, t: y})  # loss before the step
            assert len(sess.last_run_evaluated) == len(set(sess.last_run_evaluated))
            losses.append(loss_val)
            weights.append(np.concatenate([a.ravel() for a in sess.run([W, b])]))
    return np.array(losses), np.array(weights)


def test_optimizer_applies_one_step_to_all_trainable_variables():
    W = tf.Variable([1.0, 2.0], name="W")
    frozen = tf.Variable([3.0], name="frozen", trainable=False)
    loss = tf.reduce_sum(tf.square(W) * frozen)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    assert tf.trainable_variables() == [W]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(step) is None
        np.testing.assert_allclose(sess.run(W), np.array([1.0, 2.0]) * (1 - 0.1 * 6.0), rtol=1e-15)
        np.testing.assert_allclose(sess.run(frozen), [3.0])


def test_logistic_regression_matches_torch():
    losses, weights = train_mini_tf()
    X, y, W0, b0 = logistic_data()
    Xt, yt = torch.tensor(X), torch.tensor(y)
    W = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(b0, requires_grad=True)
    t_losses, t_weights = [], []
    for _ in range(STEPS):
        p = torch.sigmoid(Xt @ W + b)
        loss = -torch.mean(yt * torch.log(p) + (1 - yt) * torch.log(1 - p))
        loss.backward()
        with torch.no_grad():
            W -= LR * W.grad
            b -= LR * b.grad
        W.grad = None
        b.grad = None
        t_losses.append(loss.item())
        t_weights.append(np.concatenate([W.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    assert losses[-1] < 0.6 * losses[0]  # it does learn
    np.testing.assert_allclose(losses, t_losses, rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights, np.array(t_weights), rtol=0, atol=1e-12)


def test_logistic_regression_matches_minitorch_dynamic_graph():
    if not hasattr(minitorch, "tensor"):
        pytest.skip("minitorch.tensor is not available yet (the Tensor API is not built)")
    losses, weights = train_mini_tf()
    X, y, W0, b0 = logistic_data()
    Xm, Tm = minitorch.tensor(X), minitorch.tensor(y)
    one = minitorch.tensor(np.ones_like(y))
    minus_one = minitorch.tensor(-np.ones_like(y))
    W = minitorch.tensor(W0, requires_grad=True)
    b = minitorch.tensor(b0, requires_grad=True)
    m_losses, m_weights = [], []
    for _ in range(STEPS):
        p = (Xm @ W + b).sigmoid()
        loss = ((Tm * p.log() + (one - Tm) * (one - p).log()) * minus_one).mean()
        loss.backward()
        m_losses.append(float(np.asarray(loss.to_numpy()).reshape(-1)[0]))
        W = minitorch.tensor(W.to_numpy() - LR * W.grad.to_numpy(), requires_grad=True)
        b = minitorch.tensor(b.to_numpy() - LR * b.grad.to_numpy(), requires_grad=True)
        m_weights.append(np.concatenate([W.to_numpy().ravel(), b.to_numpy().ravel()]))
    np.testing.assert_allclose(losses, m_losses, rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights, np.array(m_weights), rtol=0, atol=1e-12)
