"""Linear initialised PyTorch-style (U(-1/sqrt(in), 1/sqrt(in)) weights, zero bias), and a Network that
keeps its layers in differently named attributes and uses the Dropout module."""

import math as _math

import numpy as _np


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        bound = 1.0 / _math.sqrt(in_size)
        self.W = minitorch.Parameter(minitorch.tensor(_np.random.uniform(-bound, bound, (in_size, out_size)),
                                                      backend=BACKEND))
        self.b = minitorch.Parameter(minitorch.zeros((out_size,), backend=BACKEND))

    def forward(self, x):
        return x @ self.W.value + self.b.value


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.hidden_dim = hidden_dim
        self.dropout_prob = dropout_prob
        self.hidden = Linear(embedding_dim, hidden_dim)
        self.drop = minitorch.Dropout(dropout_prob)
        self.output = Linear(hidden_dim, 1)

    def forward(self, embeddings):
        batch = embeddings.shape[0]
        x = embeddings.sum(1) / embeddings.shape[1]
        x = self.drop(self.hidden(x.view(batch, self.embedding_dim)).relu())
        return self.output(x).sigmoid().view(batch)
