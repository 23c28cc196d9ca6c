import math
import random
import pdb

import embeddings

import sys
sys.path.append('../')
import minitorch

from datasets import load_dataset
from datasets.load import load_dataset as load_dataset_from_module
from tqdm import tqdm

from minitorch import SimpleOps, CudaKernelOps
from minitorch.cuda_kernel_ops import CudaKernelOps

SIMPLE = minitorch.TensorBackend(SimpleOps)

