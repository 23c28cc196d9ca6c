"""Compatibility shim for llmsys student files (CPU only).

llmsys student code does

    from minitorch.cuda_kernel_ops import CudaKernelOps
    BACKEND = minitorch.TensorBackend(CudaKernelOps)

Here `CudaKernelOps` is the NumPy backend, so such files run unchanged on a
machine without a GPU (the values are float64 NumPy results, not CUDA ones).
"""

from .tensor_ops import NumpyOps

CudaKernelOps = NumpyOps

__all__ = ["CudaKernelOps"]
