"""TensorData: indexing, strides, permuted views, broadcasting rules, contiguity."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.strategies import DataObject, data, integers, permutations

import minitorch
from minitorch import IndexingError, TensorData
from minitorch.tensor_data import (
    broadcast_index,
    index_to_position,
    shape_broadcast,
    strides_from_shape,
    to_index,
)
from strategies import broadcastable_shapes, shapes, size_of
from tensor_strategies import tensor_data, tensors

SETTINGS = settings(max_examples=40, deadline=None)


def test_strides_from_shape_examples():
    assert strides_from_shape((2, 3, 4)) == (12, 4, 1)
    assert strides_from_shape((5,)) == (1,)
    assert strides_from_shape(()) == ()
    assert TensorData([0.0] * 6, (2, 3)).strides == (3, 1)


@SETTINGS
@given(shapes())
def test_to_index_round_trip(shape):
    """Ordinal -> index -> position is the identity on contiguous data, and visits every index once."""
    strides = strides_from_shape(shape)
    seen = set()
    out = [0] * len(shape)
    for ordinal in range(size_of(shape)):
        to_index(ordinal, shape, out)
        assert all(0 <= i < s for i, s in zip(out, shape))
        assert index_to_position(out, strides) == ordinal
        seen.add(tuple(out))
    assert len(seen) == size_of(shape)
    # row-major: the same order as numpy's ndindex
    assert [tuple(i) for i in np.ndindex(*shape)] == list(TensorData([0.0] * size_of(shape), shape).indices())


@SETTINGS
@given(tensor_data())
def test_index_matches_numpy_strides(td):
    """`index` computes sum(i_k * stride_k), the same element numpy finds."""
    arr = td.array
    for idx in td.indices():
        assert td.index(idx) == sum(i * s for i, s in zip(idx, td.strides))
        assert td.get(idx) == arr[idx]
    assert np.shares_memory(arr, td._storage)


@SETTINGS
@given(data())
def test_permute_is_a_view(d: DataObject):
    td = d.draw(tensor_data())
    order = d.draw(permutations(range(td.dims)))
    view = td.permute(*order)
    assert view.shape == tuple(td.shape[o] for o in order)
    assert view._storage is td._storage
    for idx in td.indices():
        permuted = tuple(idx[o] for o in order)
        assert view.get(permuted) == td.get(idx)
    # writes through the view are seen by the original
    idx = td.sample()
    view.set(tuple(idx[o] for o in order), 123.5)
    assert td.get(idx) == 123.5
    np.testing.assert_array_equal(view.array, np.transpose(td.array, order))


def test_permute_rejects_non_permutations():
    td = TensorData([0.0] * 6, (2, 3))
    with pytest.raises(IndexingError):
        td.permute(0, 0)
    with pytest.raises(IndexingError):
        td.permute(0)


def test_index_errors():
    td = TensorData([float(i) for i in range(6)], (2, 3))
    with pytest.raises(IndexingError):
        td.index((0,))
    with pytest.raises(IndexingError):
        td.index((2, 0))
    with pytest.raises(IndexingError):
        td.index((0, 3))
    # as the course's TensorData: negative indices are an error, not a count from the end
    for bad in ((-1, -1), (0, -1), (-1, 0)):
        with pytest.raises(IndexingError, match="Negative indexing"):
            td.get(bad)
    with pytest.raises(IndexingError):
        TensorData([0.0] * 5, (2, 3))
    with pytest.raises(IndexingError):
        TensorData([0.0] * 6, (2, 3), (1,))


def test_broadcast_examples():
    assert shape_broadcast((1,), (5, 5)) == (5, 5)
    assert shape_broadcast((5, 5), (1,)) == (5, 5)
    assert shape_broadcast((1, 5, 5), (5, 5)) == (1, 5, 5)
    assert shape_broadcast((5, 1, 5, 1), (1, 5, 1, 5)) == (5, 5, 5, 5)
    assert shape_broadcast((2, 5), (5,)) == (2, 5)
    assert shape_broadcast((), (3,)) == (3,)


@pytest.mark.parametrize("s1, s2", [((5, 7, 5, 1), (1, 5, 1, 5)), ((5, 2), (5,)), ((3,), (4,)), ((2, 3), (3, 2))])
def test_broadcast_error_names_both_shapes(s1, s2):
    with pytest.raises(IndexingError) as info:
        shape_broadcast(s1, s2)
    assert str(s1) in str(info.value) and str(s2) in str(info.value)


@SETTINGS
@given(broadcastable_shapes())
def test_broadcast_matches_numpy(pair):
    s1, s2 = pair
    assert shape_broadcast(s1, s2) == np.broadcast_shapes(s1, s2)
    assert shape_broadcast(s2, s1) == np.broadcast_shapes(s1, s2)


@SETTINGS
@given(broadcastable_shapes())
def test_broadcast_index_matches_numpy_broadcasting(pair):
    """Reading a small tensor through broadcast_index = numpy's broadcast_to."""
    s1, s2 = pair
    big = shape_broadcast(s1, s2)
    small = np.arange(size_of(s1), dtype=float).reshape(s1)
    expected = np.broadcast_to(small, big)
    out = [0] * len(s1)
    for idx in np.ndindex(*big):
        broadcast_index(idx, big, s1, out)
        assert small[tuple(out)] == expected[idx]


def test_broadcast_index_example():
    out = [0, 0]
    broadcast_index((2, 3, 4), (3, 4, 5), (1, 5), out)
    assert out == [0, 4]


@SETTINGS
@given(tensors())
def test_contiguous_copies_and_view(t):
    c = t.contiguous()
    assert c._tensor.is_contiguous()
    np.testing.assert_array_equal(c.to_numpy(), t.to_numpy())
    flat = c.view(t.size)
    np.testing.assert_array_equal(flat.to_numpy(), t.to_numpy().reshape(-1))
    if not t._tensor.is_contiguous():
        assert not np.shares_memory(c._tensor._storage, t._tensor._storage)
        with pytest.raises(AssertionError, match="contiguous"):
            t.view(t.size)


def test_view_of_transpose_raises_and_contiguous_fixes_it():
    t = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    tt = t.permute(1, 0)
    assert not tt._tensor.is_contiguous()
    with pytest.raises(AssertionError, match="contiguous"):
        tt.view(6)
    np.testing.assert_array_equal(tt.contiguous().view(6).to_numpy(), [1, 4, 2, 5, 3, 6])
    # size-1 dims do not break contiguity
    col = minitorch.tensor([[1.0], [2.0], [3.0]]).permute(1, 0)
    assert col._tensor.is_contiguous()
    np.testing.assert_array_equal(col.view(3).to_numpy(), [1, 2, 3])


def test_storage_rebinding_refreshes_numpy_view():
    td = TensorData([1.0, 2.0, 3.0, 4.0], (2, 2))
    _ = td.array
    td._storage = np.array([5.0, 6.0, 7.0, 8.0])
    assert td.get((1, 0)) == 7.0
    np.testing.assert_array_equal(td.array, [[5.0, 6.0], [7.0, 8.0]])


@SETTINGS
@given(tensor_data(), integers(min_value=0, max_value=10**6))
def test_sample_and_to_string(td, _seed):
    idx = td.sample()
    assert all(0 <= i < s for i, s in zip(idx, td.shape))
    s = td.to_string()
    assert s.count("[") == s.count("]") >= 1
    assert isinstance(td.tuple()[1], np.ndarray) and tuple(td.tuple()[1]) == td.shape


# -- many `random.random()` values at once (rand's bulk draw) -------------------------------------------


def _bits(values) -> list:
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
@pytest.mark.parametrize("skip", [0, 5, 623, 624, 1001])
@pytest.mark.parametrize("n", [0, 1, 2, 127, 128, 129, 311, 623, 624, 625, 1024, 1249, 5003])
def test_uniform_floats_is_the_python_loop_bit_for_bit(seed, skip, n):
    """The values, the generator state after (gauss cache included) and the stream that follows are the loop's,
    wherever the generator stands (`skip` draws after the seed) and whatever `n` (bulk or loop)."""
    import random

    from minitorch.tensor_data import _uniform_floats

    random.seed(seed)
    for _ in range(skip):
        random.random()
    random.gauss(0.0, 1.0)  # a cached second gaussian: random.random() leaves it alone
    start = random.getstate()
    want = [random.random() for _ in range(n)]
    want_state, want_next = random.getstate(), [random.random() for _ in range(700)]
    random.setstate(start)
    got = _uniform_floats(n)
    assert got.dtype == np.float64 and got.shape == (n,)
    assert _bits(got) == _bits(want)
    assert random.getstate() == want_state
    assert [random.random() for _ in range(700)] == want_next


def test_uniform_floats_uses_the_bulk_draw_when_it_can(monkeypatch):
    """Large draws from the C `random()` go through `_bulk_uniform`, checked exact once (else this file's tests
    would pass on the loop alone); small ones, through the loop."""
    import random

    from minitorch import tensor_data

    calls = []
    real = tensor_data._bulk_uniform
    monkeypatch.setattr(tensor_data, "_bulk_uniform", lambda inst, n: calls.append(n) or real(inst, n))
    random.seed(1)
    tensor_data._uniform_floats(tensor_data._BULK_MIN - 1)
    assert calls == []
    tensor_data._uniform_floats(tensor_data._BULK_MIN)
    assert tensor_data._BULK_OK is True and calls[-1] == tensor_data._BULK_MIN


def test_uniform_floats_calls_a_patched_random_once_per_value(monkeypatch):
    """A monkeypatched `random.random` (not the C method of a Random) is called n times, in order: the loop."""
    import random

    from minitorch.tensor_data import _BULK_MIN, _uniform_floats

    calls = []

    def counting() -> float:
        calls.append(None)
        return len(calls) / 10_000.0

    monkeypatch.setattr(random, "random", counting)
    n = 2 * _BULK_MIN
    got = _uniform_floats(n)
    assert len(calls) == n
    assert got.tolist() == [(i + 1) / 10_000.0 for i in range(n)]
    # rand (and so dropout) draws through it
    calls.clear()
    t = minitorch.rand((n // 4, 4))
    assert len(calls) == n and t.to_numpy().reshape(-1).tolist() == [(i + 1) / 10_000.0 for i in range(n)]


def test_uniform_floats_draws_from_the_generator_random_random_is_bound_to(monkeypatch):
    """`random.random` rebound to another Random's method: the values and state are that generator's."""
    import random

    from minitorch.tensor_data import _BULK_MIN, _uniform_floats

    mine, twin = random.Random(42), random.Random(42)
    global_state = random.getstate()
    monkeypatch.setattr(random, "random", mine.random)
    got = _uniform_floats(_BULK_MIN + 11)
    assert _bits(got) == _bits([twin.random() for _ in range(_BULK_MIN + 11)])
    assert mine.getstate() == twin.getstate()
    monkeypatch.undo()
    assert random.getstate() == global_state


def test_uniform_floats_leaves_a_subclass_overriding_random_to_its_loop(monkeypatch):
    """A Random subclass with its own `random` (say SystemRandom) is never bypassed."""
    import random

    from minitorch.tensor_data import _BULK_MIN, _uniform_floats

    class Halves(random.Random):
        def random(self) -> float:
            return 0.5

    monkeypatch.setattr(random, "random", Halves(3).random)
    assert _uniform_floats(_BULK_MIN + 1).tolist() == [0.5] * (_BULK_MIN + 1)


def test_rand_matches_the_loop_for_a_large_tensor():
    import random

    random.seed(11)
    want = np.array([random.random() for _ in range(40 * 30)]).reshape(40, 30)
    after = random.random()
    random.seed(11)
    got = minitorch.rand((40, 30))
    assert _bits(got.to_numpy()) == _bits(want) and random.random() == after


def test_a_bulk_draw_that_fails_its_check_is_not_used(monkeypatch):
    """`_bulk_matches_the_loop` refuses a bulk draw whose values or state differ from the loop's (another Python's
    generator), and `_uniform_floats` then draws with the loop."""
    import random

    from minitorch import tensor_data

    real = tensor_data._bulk_uniform
    monkeypatch.setattr(tensor_data, "_bulk_uniform", lambda inst, n: real(inst, n) * (1 - 2**-52))
    assert tensor_data._bulk_matches_the_loop() is False
    monkeypatch.setattr(tensor_data, "_bulk_uniform", lambda inst, n: (inst.random(), real(inst, n))[1])
    assert tensor_data._bulk_matches_the_loop() is False
    monkeypatch.setattr(tensor_data, "_BULK_OK", None)
    random.seed(5)
    want = [random.random() for _ in range(tensor_data._BULK_MIN)]
    random.seed(5)
    assert _bits(tensor_data._uniform_floats(tensor_data._BULK_MIN)) == _bits(want)
    assert tensor_data._BULK_OK is False
