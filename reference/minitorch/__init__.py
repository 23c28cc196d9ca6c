"""miniTorch: a teaching deep-learning framework (llmsys / CMU 11-868 compatible API).

Modules follow the lecture: operators -> autodiff -> scalar -> tensor_data ->
tensor_ops -> tensor_functions -> tensor (-> module, nn, optim).
"""

from . import operators  # noqa: F401
from .autodiff import *  # noqa: F401,F403
from .autodiff import Context, Variable, backpropagate, central_difference, topological_sort  # noqa: F401
from .scalar import Scalar, ScalarHistory, derivative_check  # noqa: F401
from .scalar_functions import ScalarFunction  # noqa: F401

from .tensor_data import *  # noqa: F401,F403
from .tensor_data import (  # noqa: F401
    MAX_DIMS,
    IndexingError,
    TensorData,
    broadcast_index,
    index_to_position,
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
# necessarily our extras (Mean, Embedding, dropout helpers, ones, ...).
from .tensor_functions import *  # noqa: F401,F403
from . import cuda_kernel_ops  # noqa: F401

from .module import Module, Parameter  # noqa: F401
from . import nn  # noqa: F401
from .nn import (  # noqa: F401
    Dropout,
    binary_cross_entropy,
    cross_entropy,
    dropout,
    logsoftmax,
    softmax,
)
from .optim import SGD, Adam  # noqa: F401
from . import forward  # noqa: F401
from . import mini_tf  # noqa: F401
from . import datasets  # noqa: F401
