"""Valid: llmsys-style Linear (broadcast multiply, then sum), other names and init, a Dropout module."""

import math


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        bound = 1 / math.sqrt(in_size)
        self.W = minitorch.Parameter(2 * bound * (minitorch.rand((in_size, out_size), backend=BACKEND) - 0.5))
        self.b = minitorch.Parameter(2 * bound * (minitorch.rand((out_size,), backend=BACKEND) - 0.5))
        self.in_size, self.out_size = in_size, out_size

    def forward(self, x):
        batch = x.shape[0]
        prod = x.view(batch, self.in_size, 1) * self.W.value.view(1, self.in_size, self.out_size)
        return prod.sum(1).view(batch, self.out_size) + self.b.value.view(1, self.out_size)


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.hidden_dim = hidden_dim
        self.dropout_prob = dropout_prob
        self.hidden = Linear(embedding_dim, hidden_dim)
        self.drop = minitorch.Dropout(dropout_prob)
        self.out = Linear(hidden_dim, 1)

    def forward(self, embeddings):
        batch, length, dim = embeddings.shape
        pooled = (embeddings.sum(1) / length).view(batch, dim)
        h = self.drop(self.hidden(pooled).relu())
        return self.out(h).sigmoid().view(batch)
