"""Neural-network layers and losses built from Tensor operations."""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from . import operators, tensor_functions
from .autodiff import Context
from .module import Module, Parameter
from .tensor import Tensor
from .tensor_functions import Function, rand, tensor  # noqa: F401  (the course's nn has Function, SimpleOps)
from .cuda_kernel_ops import CudaKernelOps  # noqa: F401  (the course's nn imports it: spring 2024 and 2025)
from .tensor_ops import SimpleOps  # noqa: F401


def _uniform(shape, bound: float, backend) -> Tensor:
    """U(-bound, bound) from NumPy's global generator (seed it for reproducibility)."""
    return tensor(np.random.uniform(-bound, bound, size=shape), backend=backend)


class Linear(Module):
    r"""$y = x W + b$ with $W$ of shape (in, out) and $b$ of shape (out,)."""

    def __init__(self, in_size: int, out_size: int, backend=None):
        super().__init__()
        backend = backend or tensor_functions.FastBackend
        bound = 1.0 / math.sqrt(in_size)
        self.weights = Parameter(_uniform((in_size, out_size), bound, backend))
        self.bias = Parameter(_uniform((out_size,), bound, backend))
        self.out_size = out_size

    def forward(self, x: Tensor) -> Tensor:
        return x @ self.weights.value + self.bias.value


class Embedding(Module):
    """A lookup table: ids [B, L] -> vectors [B, L, D]; backward scatter-adds into the rows."""

    def __init__(self, num_embeddings: int, embedding_dim: int, backend=None):
        super().__init__()
        backend = backend or tensor_functions.FastBackend
        self.weights = Parameter(tensor(np.random.normal(0.0, 1.0, size=(num_embeddings, embedding_dim)), backend=backend))

    def forward(self, ids: Tensor) -> Tensor:
        return tensor_functions.Embedding.apply(self.weights.value, ids)


def dropout_mask(shape, rate: float, backend=None) -> Tensor:
    """The course's keep-mask: the constant 0/1 tensor `rate < rand(shape)`.

    One `random.random()` per element (row-major, see `rand`): seed Python's
    `random` to reproduce it. `rate = 0` keeps (almost surely) everything,
    `rate >= 1` drops everything.
    """
    r = rand(shape, backend=backend) if backend is not None else rand(shape)
    return rate < r


def dropout(input: Tensor, rate: float, ignore: bool = False) -> Tensor:
    r"""The course's dropout: $y = x \cdot [\mathrm{rate} < r]$ with $r \sim U[0, 1)$ per element.

    UNSCALED (no $1/(1-\mathrm{rate})$, unlike PyTorch); `ignore=True` (evaluation)
    returns `input` itself and draws nothing. Otherwise one uniform draw per
    element of `input` is taken from Python's `random` even when `rate` is 0.

    Args:
        input: input tensor
        rate: probability in [0, 1) of dropping each position
        ignore: skip dropout, i.e. do nothing at all

    Returns:
        `input * mask`, one `Mul` node whose mask is a constant.
    """
    if ignore:
        return input
    return input * dropout_mask(input.shape, rate, backend=input.backend)


class Dropout(Module):
    """Dropout as a layer: active in train(), the identity in eval()."""

    def __init__(self, rate: float = 0.5):
        super().__init__()
        self.rate = rate

    def forward(self, x: Tensor) -> Tensor:
        return dropout(x, self.rate, ignore=not self.training)


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.relu()


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.sigmoid()


def binary_cross_entropy(out: Tensor, y: Tensor) -> Tensor:
    r"""Mean binary cross-entropy of probabilities `out` against labels `y` (same shape):

    $\ell = -\frac1B\sum_i y_i \log p_i + (1 - y_i)\log(1 - p_i)$.
    """
    per_example = -(y * out.log() + (-y + 1.0) * (-out + 1.0).log())
    return per_example.mean()


def logsumexp(input: Tensor, dim: int) -> Tensor:
    r"""$\log\sum_j e^{x_j}$ along `dim`, shifted by the (constant) maximum for stability."""
    shift = tensor(np.max(input.to_numpy(), axis=dim, keepdims=True), backend=input.backend)
    return (input - shift).exp().sum(dim).log() + shift


def logsoftmax(input: Tensor, dim: int) -> Tensor:
    r"""$z_i = x_i - \log \sum_j e^{x_j}$ along `dim` (the course's signature; log-sum-exp stable)."""
    return input - logsumexp(input, dim)


def softmax(input: Tensor, dim: int) -> Tensor:
    r"""$z_i = e^{x_i} / \sum_j e^{x_j}$ along `dim` (the course's signature; computed stably)."""
    return logsoftmax(input, dim).exp()


# Pooling, max and normalisation (the course's nn.py names and signatures).


def tile(input: Tensor, kernel: Tuple[int, int]) -> Tuple[Tensor, int, int]:
    """Cut an image batch into pooling windows.

    Args:
        input: batch x channel x height x width (height and width divisible by the kernel)
        kernel: (kernel_height, kernel_width)

    Returns:
        (tensor of shape batch x channel x new_height x new_width x (kh * kw), new_height, new_width):
        the last dimension holds the kh * kw values of one window, row by row.
    """
    batch, channel, height, width = input.shape
    kh, kw = kernel
    assert height % kh == 0 and width % kw == 0, f"kernel {kernel} does not divide {height} x {width}"
    new_height, new_width = height // kh, width // kw
    windows = input.contiguous().view(batch, channel, new_height, kh, new_width, kw)
    windows = windows.permute(0, 1, 2, 4, 3, 5).contiguous()
    return windows.view(batch, channel, new_height, new_width, kh * kw), new_height, new_width


def avgpool2d(input: Tensor, kernel: Tuple[int, int]) -> Tensor:
    """Average of every kh x kw window: batch x channel x new_height x new_width."""
    batch, channel, _, _ = input.shape
    windows, new_height, new_width = tile(input, kernel)
    return windows.mean(4).view(batch, channel, new_height, new_width)


def max_reduce(input: Tensor, dim: int) -> Tensor:
    """Maximum along `dim` (kept with size 1), on the input's backend; a constant (not differentiated)."""
    return input.backend.ops.reduce(operators.max, -math.inf)(input, int(dim))


def argmax(input: Tensor, dim: int) -> Tensor:
    """The argmax along `dim` as a 0/1 tensor shaped like `input` (1 on every maximal entry)."""
    return max_reduce(input, dim) == input


class Max(tensor_functions.Function):
    r"""$\max$ along a dimension; the gradient goes to the maximal entries (every one, on ties)."""

    @staticmethod
    def forward(ctx: Context, input: Tensor, dim: Tensor) -> Tensor:
        out = max_reduce(input, int(dim.item()))
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tuple[Tensor, float]:
        input, out = ctx.saved_values
        return (out == input) * grad_output, 0.0


def max(input: Tensor, dim: int) -> Tensor:  # noqa: A001 - the course's name
    """Differentiable maximum along `dim` (kept with size 1)."""
    return Max.apply(input, input._ensure_tensor(dim))


def maxpool2d(input: Tensor, kernel: Tuple[int, int]) -> Tensor:
    """Maximum of every kh x kw window: batch x channel x new_height x new_width."""
    batch, channel, _, _ = input.shape
    windows, new_height, new_width = tile(input, kernel)
    return max(windows, 4).view(batch, channel, new_height, new_width)


def layer_norm(input: Tensor, eps: float = 1e-5) -> Tensor:
    r"""Normalise over the last dimension: $(x - \mu) / \sqrt{\sigma^2 + \epsilon}$.

    $\mu$ and $\sigma^2$ are the mean and the population variance of the last
    dimension (no learned scale or shift). The course's nn.py has a
    `layer_norm(input, eps=1e-5)` that cannot run (it reduces a 4-D input over
    dimension 4); this is the function its name and signature describe.
    """
    last = input.dims - 1
    mean = input.mean(last)
    centred = input - mean
    variance = (centred * centred).mean(last)
    return centred / (variance + eps) ** 0.5


def cross_entropy(logits: Tensor, targets: Tensor) -> Tensor:
    r"""Mean cross-entropy from logits [B, C] and integer class ids [B] (log-sum-exp stable)."""
    batch, classes = logits.shape
    ids = targets.to_numpy().astype(np.int64).reshape(batch)
    onehot = np.zeros((batch, classes))
    onehot[np.arange(batch), ids] = 1.0
    picked = (logsoftmax(logits, 1) * tensor(onehot, backend=logits.backend)).sum(1)
    return -(picked.mean())


__all__ = [
    "Linear", "Embedding", "Dropout", "ReLU", "Sigmoid", "dropout", "dropout_mask",
    "binary_cross_entropy", "cross_entropy", "logsumexp", "logsoftmax", "softmax", "rand",
    "tile", "avgpool2d", "max_reduce", "argmax", "Max", "max", "maxpool2d", "layer_norm",
]
