

import torch


class Neg(Neg):  # noqa: F821 (the reference's Neg, defined above)
    @staticmethod
    def forward(ctx, t1):
        values = torch.tensor(t1.to_numpy()).neg().numpy()
        return minitorch.tensor(values.tolist(), backend=t1.backend)  # noqa: F821
