"""miniTorch: a teaching deep-learning framework (llmsys / CMU 11-868 compatible API).

Modules follow the lecture: operators -> autodiff -> scalar -> tensor_data ->
tensor_ops -> tensor_functions -> tensor (-> module, nn, optim).

The top-level names are the course's (its `__init__` star-imports autodiff,
module, nn, optim, tensor, tensor_data, tensor_functions, tensor_ops and takes
`MathTest`, `MathTestVariable` from `testing`), plus ours (Scalars, the NumPy
and SIMT backends, losses, datasets).
"""

from __future__ import annotations  # noqa: F401  (binds `annotations`, as the course's star imports do)

import math  # noqa: F401  (the course's star imports leak these module names)
import random  # noqa: F401
import warnings  # noqa: F401
from typing import TYPE_CHECKING, Callable, Optional, Sequence, Type, TypeAlias, Union  # noqa: F401

import numpy as np  # noqa: F401
import numpy.typing as npt  # noqa: F401
from numpy import array, float64  # noqa: F401

from . import operators  # noqa: F401
from .autodiff import *  # noqa: F401,F403
from .autodiff import Context, Variable, backpropagate, central_difference, topological_sort  # noqa: F401
from .scalar import Scalar, ScalarHistory, derivative_check  # noqa: F401
from .scalar_functions import ScalarFunction  # noqa: F401

from .tensor_data import *  # noqa: F401,F403
from .tensor_data import (  # noqa: F401
    MAX_DIMS,
    Index,
    IndexingError,
    OutIndex,
    Shape,
    Storage,
    Strides,
    TensorData,
    UserIndex,
    UserShape,
    UserStrides,
    broadcast_index,
    datasize,
    datatype,
    index_to_position,
    prod,
    shape_broadcast,
    strides_from_shape,
    to_index,
)
from .tensor_ops import *  # noqa: F401,F403
from .tensor_ops import (  # noqa: F401
    FastBackend,
    FastOps,
    NumpyOps,
    SimpleBackend,
    SimpleOps,
    SimtBackend,
    SimtOps,
    TensorBackend,
    TensorOps,
)
from .tensor import History, Tensor  # noqa: F401  (binds the submodule name `tensor` ...)

# ... which the factory `tensor` below overrides. Star import only: a student's
# whole tensor_functions.py may replace the reference one, and it defines the
# llmsys names (Function classes, zeros, rand, tensor, grad_check, ...) but not
# necessarily our extras (Mean, Embedding, ones, ...).
from .tensor_functions import *  # noqa: F401,F403
from . import cuda_kernel_ops  # noqa: F401
from .cuda_kernel_ops import CudaKernelOps  # noqa: F401

from .module import Module, Parameter  # noqa: F401
from . import nn  # noqa: F401
from .nn import (  # noqa: F401  (the course's nn names; not nn.Embedding, which would hide the Function)
    Dropout,
    Max,
    argmax,
    avgpool2d,
    binary_cross_entropy,
    cross_entropy,
    dropout,
    layer_norm,
    logsoftmax,
    max,
    max_reduce,
    maxpool2d,
    softmax,
    tile,
)
from .optim import SGD, Adam, Optimizer  # noqa: F401
from . import testing  # noqa: F401
from .testing import MathTest, MathTestVariable  # noqa: F401
from . import forward  # noqa: F401
from . import mini_tf  # noqa: F401
from . import datasets  # noqa: F401

import minitorch  # noqa: E402,F401  (the course's tensor_functions `import minitorch` leaks `minitorch.minitorch`)

version = "0.4"
