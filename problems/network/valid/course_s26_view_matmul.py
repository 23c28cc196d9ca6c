"""Valid (spring 2026 layout): Linear with view and @, the dropout called with the course's keywords
dropout(x, rate=..., ignore=not self.training).

Networks: view + @ with the course's dropout keywords.
"""

OFFERING = "s26"
SCORE = 30.0


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
        hidden = minitorch.dropout(hidden, rate=self.dropout_prob, ignore=not self.training)
        return self.second(hidden).sigmoid().view(batch)
        # END ASSIGN2_2
