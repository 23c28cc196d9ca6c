"""Hidden probes for `network` (run in the sandbox): the student's Linear and Network.

Parameters are found through `named_parameters()` (any attribute names) and set
to fixed values chosen by their shape, so outputs can be compared whatever the
student's initialisation. What is sent is bounded whatever the student's modules hold: at most
MAX_PARAMETERS shapes (with the true count) and MAX_VALUES values per tensor.
"""

import itertools

import numpy as np

import minitorch
from probekit import PROBES, capture, probe  # noqa: F401
from project import run_sentiment as hw

#: values sent per tensor (the probes' largest output has 30): a larger one is described, not sent
MAX_VALUES = 4096
#: parameters (and dimensions per shape) sent: the contract's modules have 2 and 4 parameters of 1-2 dims
MAX_PARAMETERS = 64
MAX_DIMS = 16


def contract_shape(shape):
    """`shape` without its leading 1s (at least one dimension): a (1, out) bias is read as the contract's (out,)."""
    key = tuple(shape)
    while len(key) > 1 and key[0] == 1:
        key = key[1:]
    return key


def viewed_as(t, key):
    """`t` viewed in the shape `key` (a parameter's contract shape); as it is when it has that shape, or another
    size (then the judge says it differs)."""
    if tuple(t.shape) == key:
        return t
    try:
        return t.contiguous().view(*key)
    except Exception:
        return t


def gradients_by_shape(module):
    """{str(contract shape): the gradient's values in that shape, or None} of the module's first parameters."""
    grads = {}
    for _, p in first_parameters(module):
        key = contract_shape(p.value.shape)
        grad = p.value.grad
        grads[str(list(key))] = None if grad is None else values(viewed_as(grad, key))
    return dict(sorted(grads.items()))


def fixed(shape, salt=0):
    """Deterministic values for a parameter of `shape`, drawn for the shape without its leading 1s: a bias kept as
    (1, out) gets the values of the contract's (out,) bias, so that its network computes the same numbers (its
    shape is the parameter tests' business, not every value test's)."""
    key = contract_shape(shape)
    rng = np.random.default_rng(1000 + 31 * salt + sum((i + 1) * 97 * s for i, s in enumerate(key)))
    return rng.uniform(-0.8, 0.8, size=key).reshape(shape)


def param_shapes(module):
    """[name, shape] of the module's first MAX_PARAMETERS parameters (shapes: their first MAX_DIMS sizes)."""
    return [[name, list(p.value.shape)[:MAX_DIMS]] for name, p in first_parameters(module)]


def first_parameters(module):
    """The module's first MAX_PARAMETERS (name, parameter) pairs."""
    return list(itertools.islice(module.named_parameters(), MAX_PARAMETERS))


def shape_record(module):
    """{"shapes": the sorted shapes sent (at most MAX_PARAMETERS), "count": how many parameters there are,
    "alike": the shapes of the weight matrices whose units start alike (`units_alike`)}."""
    return {"shapes": sorted(s for _, s in param_shapes(module)), "count": len(list(module.named_parameters())),
            "alike": sorted(list(p.value.shape) for _, p in first_parameters(module) if units_alike(p.value))}


def units_alike(t):
    """Whether `t` is an (in, out) matrix whose units start alike: all its columns equal (2+ columns), or one value
    everywhere (2+ values). Such units compute the same thing and get the same gradient, and gradient descent keeps
    them alike (nothing breaks the symmetry)."""
    if len(t.shape) != 2 or int(np.prod(t.shape)) < 2:
        return False
    data = np.asarray(t.to_numpy(), dtype=np.float64)
    if data.shape[1] >= 2:
        return bool(np.all(data == data[:, :1]))
    return bool(np.all(data == data.flat[0]))


def assign(module):
    """Give every parameter the fixed values for its shape; return the shapes assigned."""
    shapes = []
    for _name, p in module.named_parameters():
        shape = tuple(p.value.shape)
        p.update(minitorch.tensor(fixed(shape)))
        shapes.append(list(shape))
    return shapes


def values(t):
    """The tensor's values as nested lists; a tensor of more than MAX_VALUES values as a short description
    (no value of the contract's is that large: the judge reports it as not numbers)."""
    size = int(np.prod(t.shape, dtype=np.float64))
    if size > MAX_VALUES:
        return f"a tensor of shape {tuple(t.shape[:MAX_DIMS])} ({size:.0f} values, too many to send)"
    return np.asarray(t.to_numpy(), dtype=np.float64).tolist()


@probe("linear_parameters")
def linear_parameters(_):
    out = []
    for n_in, n_out in ((5, 3), (7, 1), (2, 6)):
        out.append(shape_record(hw.Linear(n_in, n_out)))
    return out


@probe("linear_forward")
def linear_forward(_):
    rng = np.random.default_rng(5)
    out = []
    for n_in, n_out, batch in ((5, 3, 4), (7, 1, 1), (2, 6, 3)):
        layer = hw.Linear(n_in, n_out)
        assign(layer)
        x = minitorch.tensor(rng.uniform(-1, 1, (batch, n_in)))
        y = layer.forward(x)
        out.append({"shape": list(y.shape)[:MAX_DIMS], "values": values(y)})
    return out


@probe("linear_gradients")
def linear_gradients(_):
    rng = np.random.default_rng(6)
    layer = hw.Linear(4, 3)
    assign(layer)
    x = minitorch.tensor(rng.uniform(-1, 1, (5, 4)), requires_grad=True)
    g = rng.uniform(-1, 1, (5, 3))
    (layer.forward(x) * minitorch.tensor(g)).sum().backward()
    return {"x": values(x.grad), "params": gradients_by_shape(layer)}


@probe("network_parameters")
def network_parameters(_):
    return shape_record(hw.Network(embedding_dim=6, hidden_dim=4, dropout_prob=0.5))


def _network(dropout):
    model = hw.Network(embedding_dim=6, hidden_dim=4, dropout_prob=dropout)
    assign(model)
    return model


def parameters_by_shape(module):
    """{str(contract shape): the parameter's values in that shape} of the module's first parameters (what the
    judge needs to name the step a wrong forward left out or changed)."""
    found = {}
    for _, p in first_parameters(module):
        key = contract_shape(p.value.shape)
        found[str(list(key))] = values(viewed_as(p.value, key))
    return dict(sorted(found.items()))


@probe("network_forward_eval")
def network_forward_eval(_):
    """Eval-mode outputs with dropout_prob = 0 (the values of the layers, whatever dropout does in eval mode:
    that is `network_dropout`'s to judge, once), with each batch's inputs and the parameters they met (by shape)."""
    rng = np.random.default_rng(7)
    out = []
    for batch, length in ((3, 5), (1, 2), (4, 7)):
        model = _network(0.0)
        model.eval()
        inputs = rng.uniform(-1, 1, (batch, length, 6))
        y = model.forward(minitorch.tensor(inputs))
        out.append({"shape": list(y.shape)[:MAX_DIMS], "values": values(y), "inputs": inputs.tolist(),
                    "parameters": parameters_by_shape(model)})
    return out


@probe("network_forward_no_dropout")
def network_forward_no_dropout(_):
    """Training mode with dropout_prob = 0 must equal evaluation mode."""
    rng = np.random.default_rng(8)
    model = _network(0.0)
    model.train()
    x = minitorch.tensor(rng.uniform(-1, 1, (4, 3, 6)))
    return {"values": values(model.forward(x))}


@probe("network_gradients")
def network_gradients(_):
    rng = np.random.default_rng(9)
    model = _network(0.0)
    model.train()
    x = minitorch.tensor(rng.uniform(-1, 1, (5, 4, 6)))
    g = rng.uniform(-1, 1, (5,))
    out = model.forward(x)
    (out * minitorch.tensor(g)).sum().backward()
    return {"output_shape": list(out.shape)[:MAX_DIMS], "grads": gradients_by_shape(model)}


@probe("network_dropout")
def network_dropout(_):
    """The outputs of 8 training-mode and 3 evaluation-mode forwards of one input (the parent judges the spread)."""
    rng = np.random.default_rng(10)
    model = _network(0.5)
    x = minitorch.tensor(rng.uniform(-1, 1, (6, 3, 6)))
    model.train()
    train_runs = [values(model.forward(x)) for _ in range(8)]
    model.eval()
    eval_runs = [values(model.forward(x)) for _ in range(3)]
    # the network's hidden layer on this input, computed here from the fixed parameters (not by the
    # student's code): the parent checks each training output is this layer with some units dropped
    hidden = np.maximum(x.to_numpy().mean(axis=1) @ fixed((6, 4)) + fixed((4,)), 0.0)
    return {"train": train_runs, "eval": eval_runs, "hidden": hidden.tolist(),
            "w2": fixed((4, 1)).ravel().tolist(), "b2": float(fixed((1,))[0]), "rate": 0.5}
