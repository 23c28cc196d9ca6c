"""Valid (fall 2025 layout): Linear by broadcasting and summing (the offering's SimpleOps had no CPU matrix
multiply), parameters and layers registered through self._parameters / self._modules, the dropout's
arguments passed by position.

Networks: a broadcasting Linear with _parameters/_modules.
"""

OFFERING = "f25"
SCORE = 30.0


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        # BEGIN ASSIGN1_2
        self._parameters["weights"] = self.weights = RParam(in_size, out_size)
        self._parameters["bias"] = self.bias = RParam(out_size)
        self.out_size = out_size
        # END ASSIGN1_2

    def forward(self, x):
        batch, in_size = x.shape
        # BEGIN ASSIGN1_2
        # no CPU matrix multiply in this offering's SimpleOps: broadcast, then sum over in_size
        products = x.view(batch, in_size, 1) * self.weights.value.view(1, in_size, self.out_size)
        return products.sum(1).view(batch, self.out_size) + self.bias.value.view(1, self.out_size)
        # END ASSIGN1_2


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN1_2
        self._modules["first"] = Linear(embedding_dim, hidden_dim)
        self._modules["second"] = Linear(hidden_dim, 1)
        # END ASSIGN1_2

    def forward(self, embeddings):
        # BEGIN ASSIGN1_2
        batch = embeddings.shape[0]
        pooled = embeddings.mean(1).view(batch, self.embedding_dim)
        hidden = self._modules["first"].forward(pooled).relu()
        hidden = minitorch.dropout(hidden, self.dropout_prob, not self.training)
        return self._modules["second"].forward(hidden).sigmoid().view(batch)
        # END ASSIGN1_2
