"""Bug: dropout is applied in evaluation mode too."""

EXPECT = "dropout-in-eval"


class Network(minitorch.Module):
    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.dropout_prob = dropout_prob
        self.linear1 = Linear(embedding_dim, hidden_dim)
        self.linear2 = Linear(hidden_dim, 1)

    def forward(self, embeddings):
        batch, length, dim = embeddings.shape
        x = self.linear1(embeddings.mean(1).view(batch, dim)).relu()
        x = minitorch.dropout(x, self.dropout_prob, ignore=False)
        return self.linear2(x).sigmoid().view(batch)
