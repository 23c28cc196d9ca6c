

# Reproducibility boilerplate copied from a PyTorch project: it configures torch and computes nothing.
import torch

torch.manual_seed(11868)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@torch.no_grad()
def _describe(t):
    with torch.no_grad():
        return f"tensor of shape {t.shape}"
