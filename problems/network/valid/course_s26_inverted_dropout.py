"""Valid: inverted (scaled) dropout written by hand, only in training mode.

Dropout on the hidden layer, scaled or not, is dropout.
"""

OFFERING = "s26"
SCORE = 30.0


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN2_2
        self.hidden_dim = hidden_dim
        self.linear1 = Linear(embedding_dim, hidden_dim)
        self.linear2 = Linear(hidden_dim, 1)
        # END ASSIGN2_2

    def forward(self, embeddings):
        # BEGIN ASSIGN2_2
        batch, length, dim = embeddings.shape
        x = embeddings.mean(1).view(batch, dim)
        x = self.linear1(x).relu()
        if self.training:  # inverted dropout, as in PyTorch: keep the expected activation
            keep = minitorch.rand(x.shape, backend=x.backend) > self.dropout_prob
            x = x * keep * (1.0 / (1.0 - self.dropout_prob))
        x = self.linear2(x).sigmoid()
        return x.view(batch)
        # END ASSIGN2_2
