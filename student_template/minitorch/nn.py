"""Neural-network layers and losses built from Tensor operations."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from . import tensor_functions
from .module import Module, Parameter
from .tensor import Tensor
from .tensor_functions import rand, tensor


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


def dropout_mask(shape, p: float) -> np.ndarray:
    """Keep-mask with P(keep) = 1 - p, from NumPy's global generator."""
    return (np.random.random_sample(shape) >= p).astype(np.float64)


def dropout(input: Tensor, p: float, ignore: bool = False, mask: Optional[np.ndarray] = None) -> Tensor:
    r"""Inverted dropout: $y = x \cdot m / (1 - p)$ with $m_i \sim \mathrm{Bernoulli}(1 - p)$.

    `ignore=True` (evaluation) returns the input unchanged; `mask` fixes the mask
    (tests feed the same mask to a twin implementation).
    """
    if ignore or p <= 0.0:
        return input
    if p >= 1.0:
        return input * 0.0
    keep = dropout_mask(input.shape, p) if mask is None else np.asarray(mask, dtype=np.float64)
    return input * tensor(keep * (1.0 / (1.0 - p)), backend=input.backend)


class Dropout(Module):
    """Dropout as a layer: active in train(), the identity in eval()."""

    def __init__(self, p: float = 0.5):
        super().__init__()
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return dropout(x, self.p, ignore=not self.training)


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


def logsumexp(logits: Tensor, dim: int) -> Tensor:
    r"""$\log\sum_j e^{x_j}$ along `dim`, shifted by the (constant) maximum for stability."""
    shift = tensor(np.max(logits.to_numpy(), axis=dim, keepdims=True), backend=logits.backend)
    return (logits - shift).exp().sum(dim).log() + shift


def logsoftmax(logits: Tensor, dim: int) -> Tensor:
    return logits - logsumexp(logits, dim)


def softmax(logits: Tensor, dim: int) -> Tensor:
    return logsoftmax(logits, dim).exp()


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
]
