"""Network.forward calls dropout without `ignore`: still dropping units after model.eval()."""


def _network_forward(self, embeddings):
    batch, length, dim = embeddings.shape
    x = embeddings.mean(1).view(batch, dim)
    x = minitorch.dropout(self.linear1(x).relu(), self.dropout_prob)
    return self.linear2(x).sigmoid().view(batch)


Network.forward = _network_forward
