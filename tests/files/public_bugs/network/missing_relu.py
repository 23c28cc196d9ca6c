"""Network.forward forgets the ReLU between the two layers."""


def _network_forward(self, embeddings):
    batch, length, dim = embeddings.shape
    x = embeddings.mean(1).view(batch, dim)
    x = self.linear1(x)
    x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
    return self.linear2(x).sigmoid().view(batch)


Network.forward = _network_forward
