"""``BatchNorm1d``/``2d``/``3d`` (``torch/nn/modules/batchnorm.py``): running statistics as buffers,
``num_batches_tracked``, ``momentum=None`` for a cumulative average, batch or running statistics
by mode."""

from __future__ import annotations

from typing import Any

from ...dispatch.publish import FUNCTIONS, NAMESPACES
from ...dtypes import int64
from ...dispatch.signature import py_type_name
from ...errors import TorchAttributeError, TorchNotImplementedError, TorchValueError
from ...tensor import Tensor
from .. import init
from ..parameter import Parameter
from .linear import empty
from .module import Module


class _NormBase(Module):
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(empty(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", FUNCTIONS["zeros"](num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", FUNCTIONS["ones"](num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", FUNCTIONS["tensor"](0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002 - PyTorch's name
        raise TorchNotImplementedError

    def extra_repr(self) -> str:
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, bias={use_bias}, "
                "track_running_stats={track_running_stats}").format(**self.__dict__, use_bias=self.bias is not None)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None \
                    else FUNCTIONS["tensor"](0, dtype=int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if not isinstance(input, Tensor):   # (PyTorch's _check_input_dim calls input.dim())
            raise TorchAttributeError(f"'{py_type_name(input)}' object has no attribute 'dim'")
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:
                    exponential_average_factor = self.momentum
        bn_training = True if self.training else self.running_mean is None and self.running_var is None
        use_buffers = not self.training or self.track_running_stats
        return NAMESPACES["nn.functional"]["batch_norm"](
            input, self.running_mean if use_buffers else None, self.running_var if use_buffers else None,
            self.weight, self.bias, bn_training, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Over a (N, C) or (N, C, L) input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 2 and input.dim() != 3:
            raise TorchValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Over a (N, C, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 4:
            raise TorchValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Over a (N, C, D, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 5:
            raise TorchValueError(f"expected 5D input (got {input.dim()}D input)")


for _cls in (_NormBase, _BatchNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d):
    _cls.__module__ = "torch.nn.modules.batchnorm"
