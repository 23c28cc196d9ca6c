"""Bug: no ReLU between the two layers."""

EXPECT = None


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.dropout_prob = dropout_prob
        self.linear1 = Linear(embedding_dim, hidden_dim)
        self.linear2 = Linear(hidden_dim, 1)

    def forward(self, embeddings):
        batch, length, dim = embeddings.shape
        x = self.linear1(embeddings.mean(1).view(batch, dim))
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
        return self.linear2(x).sigmoid().view(batch)
