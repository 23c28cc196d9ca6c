

import torch

# computed with torch when the module is imported
_HALF = float(torch.ones(1)[0]) / 2.0
