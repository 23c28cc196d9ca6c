"""Buggy: dropout on the output of the second Linear, just before the sigmoid (`dropout-misplaced`).

Dropout on the output is misplaced.
"""

OFFERING = "s26"
LABELS = ["dropout-misplaced"]
FAILS = ["network_dropout"]
SCORE = 27.0


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
        x = self.linear2(self.linear1(x).relu())
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training).sigmoid()
        return x.view(batch)
        # END ASSIGN2_2
