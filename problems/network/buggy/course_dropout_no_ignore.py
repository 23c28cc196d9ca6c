"""Bug (spring 2026 layout): minitorch.nn.dropout(x, self.dropout_prob) without ignore=..., so dropout is
still active in evaluation mode.

Dropout without ignore=...: on in evaluation mode, named; dropout left on in eval mode costs one test (3 of
30): the value tests use dropout_prob = 0.
"""

OFFERING = "s26"
LABELS = ["dropout-in-eval"]
FAILS = ["network_dropout"]
SCORE = 27.0


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        # BEGIN ASSIGN2_2
        self.weights = RParam(in_size, out_size)
        self.bias = RParam(out_size)
        self.out_size = out_size
        # END ASSIGN2_2

    def forward(self, x):
        batch, in_size = x.shape
        # BEGIN ASSIGN2_2
        flat = x.view(batch, in_size)
        out = flat @ self.weights.value.view(in_size, self.out_size)
        return out.view(batch, self.out_size) + self.bias.value.view(1, self.out_size)
        # END ASSIGN2_2


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN2_2
        self.first = Linear(embedding_dim, hidden_dim)
        self.second = Linear(hidden_dim, 1)
        # END ASSIGN2_2

    def forward(self, embeddings):
        # BEGIN ASSIGN2_2
        batch = embeddings.shape[0]
        pooled = embeddings.mean(1).view(batch, self.embedding_dim)
        hidden = self.first(pooled).relu()
        hidden = minitorch.nn.dropout(hidden, self.dropout_prob)
        return self.second(hidden).sigmoid().view(batch)
        # END ASSIGN2_2
