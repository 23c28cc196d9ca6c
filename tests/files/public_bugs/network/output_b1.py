"""Network.forward returns the [B, 1] output of the last layer instead of [B]."""


def _network_forward(self, embeddings):
    batch, length, dim = embeddings.shape
    x = embeddings.mean(1).view(batch, dim)
    x = self.linear1(x).relu()
    x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
    return self.linear2(x).sigmoid()


Network.forward = _network_forward
