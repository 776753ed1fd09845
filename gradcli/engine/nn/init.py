"""``torch.nn.init``: in-place initialisers, drawing from the generator in PyTorch's order.

Each function follows ``torch/nn/init.py`` step by step (the same calls of
``uniform_``/``normal_`` with the same bounds, computed with the same Python
float arithmetic), so after ``torch.manual_seed(n)`` the values are PyTorch's.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..callbacks import pythons_errors
from ..autograd import grad_mode
from ..dispatch.publish import FUNCTIONS
from ..errors import TorchAttributeError, TorchValueError
from ..tensor import Tensor
from ..warnings import warn


def _uniform(tensor: Tensor, a: float, b: float, generator: Any) -> Tensor:
    with grad_mode.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _normal(tensor: Tensor, mean: float, std: float, generator: Any) -> Tensor:
    with grad_mode.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for a nonlinearity (``calculate_gain("relu")`` is ``sqrt(2)``)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise TorchValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise TorchValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    return _uniform(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    return _normal(tensor, mean, std, generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """Normal values redrawn until inside [a, b] (PyTorch 2.13: resampling when the interval holds more
    than 30% of the mass, else rejection sampling from the uniform on [a, b])."""
    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
             "incorrect.")
    where, empty_like = FUNCTIONS["where"], FUNCTIONS["empty_like"]
    with grad_mode.no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo = tensor.new_tensor(a).item()
            hi = tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = where(mask, empty_like(result).normal_(mean, std, generator=generator), result)
            if tensor is not result:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            candidates = empty_like(tensor)
            accept_buf = empty_like(tensor)
            tensor.uniform_(a, b, generator=generator)
            candidates.copy_(tensor)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
            if pending.any():
                result = tensor
                while True:
                    candidates.uniform_(a, b, generator=generator)
                    result = where(pending, candidates, result)
                    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                    pending = where(pending, accept_buf.uniform_(generator=generator).log_().gt(candidates), pending)
                    if not pending.any():
                        break
                tensor.copy_(result)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    with grad_mode.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    with grad_mode.no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with grad_mode.no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndimension() != 2:
        raise TorchValueError("Only tensors with 2 dimensions are supported")
    with grad_mode.no_grad():
        FUNCTIONS["eye"](*tensor.shape, out=tensor)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise TorchValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise TorchValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with grad_mode.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                centre = tuple(tensor.size(k) // 2 for k in range(2, dimensions))
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    dimensions = tensor.dim()
    if dimensions < 2:
        raise TorchValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _uniform(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _normal(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise TorchValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    if 0 in tensor.shape:
        warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return _uniform(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    if 0 in tensor.shape:
        warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return _normal(tensor, 0, std, generator)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    if tensor.ndimension() != 2:
        raise TorchValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with grad_mode.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = FUNCTIONS["randperm"](rows)
            tensor[row_indices[:num_zeros], col_idx] = 0
    return tensor


def _deprecated(function: Callable) -> Callable:
    new_name = function.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Any:
        warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", "FutureWarning")
        return function(*args, **kwargs)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


_PUBLIC = (calculate_gain, uniform_, normal_, trunc_normal_, constant_, ones_, zeros_, eye_, dirac_,
           xavier_uniform_, xavier_normal_, kaiming_uniform_, kaiming_normal_, sparse_)
for _fn in _PUBLIC:
    _fn.__module__ = "torch.nn.init"


# The attribute torch/nn/init.py reads first of its tensor argument: what fails, with Python's
# AttributeError, when the argument is no tensor (init.normal_(5)).
_FIRST_ATTRIBUTE = {"uniform_": "uniform_", "normal_": "normal_", "trunc_normal_": "is_meta", "constant_": "fill_",
                    "ones_": "fill_", "zeros_": "zero_", "eye_": "ndimension", "dirac_": "ndimension",
                    "xavier_uniform_": "dim", "xavier_normal_": "dim", "kaiming_uniform_": "shape",
                    "kaiming_normal_": "shape", "sparse_": "ndimension"}


def _of_tensor(fn: Callable) -> Callable:
    """``fn`` refusing a first argument that is no tensor as PyTorch's Python code does."""
    attribute = _FIRST_ATTRIBUTE[fn.__name__]
    checked = pythons_errors(fn)   # (a str std: PyTorch's own TypeError)

    def init(*args: Any, **kwargs: Any) -> Any:
        tensor = args[0] if args else kwargs.get("tensor", Tensor)
        if not isinstance(tensor, Tensor) and tensor is not Tensor:
            raise TorchAttributeError(f"'{type(tensor).__name__}' object has no attribute '{attribute}'")
        return checked(*args, **kwargs)
    init.__name__ = init.__qualname__ = fn.__name__
    init.__module__ = fn.__module__
    init.__doc__ = fn.__doc__
    init.__wrapped__ = fn  # type: ignore[attr-defined]  (its parameters, for inspect.signature)
    return init


def members() -> dict[str, Any]:
    """``torch.nn.init`` as a script sees it."""
    found: dict[str, Any] = {fn.__name__: _of_tensor(fn) if fn.__name__ in _FIRST_ATTRIBUTE else pythons_errors(fn)
                             for fn in _PUBLIC}
    for fn in (uniform_, normal_, constant_, eye_, dirac_, xavier_uniform_, xavier_normal_, kaiming_uniform_,
               kaiming_normal_, sparse_):
        found[fn.__name__[:-1]] = _deprecated(found[fn.__name__])
    found["_calculate_fan_in_and_fan_out"] = pythons_errors(_calculate_fan_in_and_fan_out)
    return found
