"""Bug (spring 2026 layout): minitorch.nn.dropout(x, self.dropout_prob) without ignore=..., so dropout is
still active in evaluation mode.

Dropout without ignore=...: on in evaluation mode, named; dropout left on in eval mode costs one test (3 of
30): the value tests use dropout_prob = 0.
"""

OFFERING = "s26"
LABELS = ["dropout-in-eval"]
FAILS = ["network_dropout"]
SCORE = 27.0

import embeddings
from datasets import load_dataset
sys.path.append('../')


# CPU: "SimpleOps"; the course's machines: "CudaKernelOps"
backend_name = "CudaKernelOps"

if backend_name == "CudaKernelOps":
    from minitorch.cuda_kernel_ops import CudaKernelOps
    BACKEND = minitorch.TensorBackend(CudaKernelOps)
elif backend_name == "SimpleOps":
    from minitorch import SimpleOps
    BACKEND = minitorch.TensorBackend(SimpleOps)


def binary_cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = out.log()
    log_not_p = (ones - out).log()
    return -(y * log_p + (ones - y) * log_not_p).mean()
    # END ASSIGN2_3


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
    """
    Sentence sentiment MLP: mean over the words -> Linear -> ReLU -> Dropout -> Linear -> sigmoid.
    """

    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN2_2
        self.first = Linear(embedding_dim, hidden_dim)
        self.second = Linear(hidden_dim, 1)
        # END ASSIGN2_2

    def forward(self, embeddings):
        """
        embeddings tensor: [batch x sentence length x embedding dim]
        """
        # BEGIN ASSIGN2_2
        batch = embeddings.shape[0]
        pooled = embeddings.mean(1).view(batch, self.embedding_dim)
        hidden = self.first(pooled).relu()
        hidden = minitorch.nn.dropout(hidden, self.dropout_prob)
        return self.second(hidden).sigmoid().view(batch)
        # END ASSIGN2_2
