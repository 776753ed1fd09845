"""``F.max_pool1d`` and ``F.avg_pool1d``: PyTorch's composites over the 2-d ops.

As in ATen, the input gets a height of 1 (``UnsqueezeBackward0``), is pooled
by ``max_pool2d_with_indices`` or ``avg_pool2d`` with a kernel of height 1, and
loses that height again (``SqueezeBackward1``); the 1-d checks come first, with
their own messages.
"""

from __future__ import annotations

from typing import Any

from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ..shape_rules import list_str
from ..tensor import Tensor
from .convolution import check_int64
from .pooling import AVG_POOL2D, MAX_POOL2D_WITH_INDICES, _kernels

CATALOG = Catalog()

_MAX_POOL1D = LazyParser("max_pool1d(Tensor input, int[1] kernel_size, int[1]? stride=[], int[1] padding=0, "
                         "int[1] dilation=1, bool ceil_mode=False)")
_MAX_POOL1D_WITH_INDICES = LazyParser(
    "max_pool1d_with_indices(Tensor input, int[1] kernel_size, int[1]? stride=[], int[1] padding=0, "
    "int[1] dilation=1, bool ceil_mode=False)")
_AVG_POOL1D = LazyParser("avg_pool1d(Tensor input, int[1] kernel_size, int[1]? stride=[], int[1] padding=0, "
                         "bool ceil_mode=False, bool count_include_pad=True)")


def _ints(value: Any) -> tuple[int, ...]:
    return (value,) if isinstance(value, int) else tuple(value or ())


def _check_max(x: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, ceil_mode: bool) -> None:
    """``check_max_pool1d``, in its order."""
    s = x.shape
    if not (x.ndim in (2, 3) and all(v != 0 for v in s[x.ndim - 2:]) and (x.ndim == 3 or s[0] != 0)):
        raise TorchRuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                                f"input, but got:{list_str(s)}")
    if len(kernel) != 1:
        raise TorchRuntimeError("max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
                                f"got size {len(kernel)}")
    if len(stride) not in (0, 1):
        raise TorchRuntimeError("max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 "
                                f"but got size {len(stride)}")
    if len(padding) != 1:
        raise TorchRuntimeError("max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but "
                                f"got size {len(padding)}")
    if len(dilation) != 1:
        raise TorchRuntimeError("max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but "
                                f"got size {len(dilation)}")
    k, st, p, d = kernel[0], (stride or kernel)[0], padding[0], dilation[0]
    if k <= 0:
        raise TorchRuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if st <= 0:
        raise TorchRuntimeError(f"max_pool1d() stride must be greater than zero, but got {st}")
    if p < 0:
        raise TorchRuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise TorchRuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}")
    if d <= 0:
        raise TorchRuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _kernels().output_size(s[-1], k, p, st, d, ceil_mode)
    if out <= 0:
        raise TorchRuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def _run_max(parser: LazyParser, args: tuple, kwargs: dict) -> tuple:
    _, b = parser.parse(args, kwargs)
    x = b["input"]
    kernel, stride, padding, dilation = (_ints(b[k]) for k in ("kernel_size", "stride", "padding", "dilation"))
    check_int64(kernel, stride, padding, dilation)
    _check_max(x, kernel, stride, padding, dilation, b["ceil_mode"])
    if x._dtype.name == "bool":
        raise TorchNotImplementedError("\"max_pool1d_impl\" not implemented for 'Bool'")
    stride = stride or kernel
    values, indices = run(MAX_POOL2D_WITH_INDICES, {
        "self": x.unsqueeze(-2), "kernel_size": (1, kernel[0]), "stride": (1, stride[0]), "padding": (0, padding[0]),
        "dilation": (1, dilation[0]), "ceil_mode": b["ceil_mode"]})
    return values.squeeze(-2), indices.squeeze(-2)


@signed(_MAX_POOL1D)
def torch_max_pool1d(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.max_pool1d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)``."""
    return _run_max(_MAX_POOL1D, args, kwargs)[0]


@signed(_MAX_POOL1D_WITH_INDICES)
def torch_max_pool1d_with_indices(*args: Any, **kwargs: Any) -> tuple:
    """``torch.max_pool1d_with_indices``: (values, indices)."""
    return _run_max(_MAX_POOL1D_WITH_INDICES, args, kwargs)


def max_pool1d_with_indices(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> tuple:
    """``F.max_pool1d_with_indices``."""
    return torch_max_pool1d_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation,
                                         ceil_mode)


def _max_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    return torch_max_pool1d(input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode)


def max_pool1d(*args: Any, **kwargs: Any) -> Any:
    """``F.max_pool1d``: the values, or (values, indices) with ``return_indices=True``."""
    flag = kwargs["return_indices"] if "return_indices" in kwargs else (args[6] if len(args) > 6 else False)
    try:
        return (max_pool1d_with_indices if flag else _max_pool1d)(*args, **kwargs)
    except TypeError as error:
        if error.__traceback__ is not None and error.__traceback__.tb_next is None:
            # the arguments did not bind: the script's mistake, in Python's words
            raise TorchTypeError(str(error)) from None
        raise


@signed(_AVG_POOL1D)
def avg_pool1d(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.avg_pool1d`` (and ``F.avg_pool1d``)."""
    _, b = _AVG_POOL1D.parse(args, kwargs)
    x = b["input"]
    if not 2 <= x.ndim < 4:
        raise TorchRuntimeError(f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
                                "'self' (while checking arguments for avg_pool1d)")
    kernel, stride, padding = (_ints(b[k]) for k in ("kernel_size", "stride", "padding"))
    check_int64(kernel, stride, padding)
    stride = stride or kernel
    for name, value in (("kernel_size", kernel), ("stride", stride), ("padding", padding)):
        if len(value) != 1:
            raise TorchRuntimeError(f"avg_pool1d() argument '{name}' should contain one int (got {len(value)})")
    out = run(AVG_POOL2D, {"self": x.unsqueeze(-2), "kernel_size": (1, kernel[0]), "stride": (1, stride[0]),
                           "padding": (0, padding[0]), "ceil_mode": b["ceil_mode"],
                           "count_include_pad": b["count_include_pad"], "divisor_override": None})
    return out.squeeze(-2)


CATALOG.register(torch_max_pool1d, "max_pool1d", torch=True)
CATALOG.register(torch_max_pool1d_with_indices, "max_pool1d_with_indices", torch=True)
CATALOG.register(avg_pool1d, "avg_pool1d", torch=True, namespaces=("nn.functional",))
CATALOG.register(max_pool1d, "max_pool1d", namespaces=("nn.functional",))
CATALOG.register(max_pool1d_with_indices, "max_pool1d_with_indices", namespaces=("nn.functional",))
