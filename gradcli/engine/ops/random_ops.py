"""The random factories and in-place samplers of the torch API, on the exact generator.

Argument parsing and PyTorch's validation messages live here; the numbers
come from ``gradcli.engine.random`` (bit-for-bit PyTorch after manual_seed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..device import check_cpu
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchValueError
from ..tensor import Tensor
from .factories import _OPTIONS, check_size, leaf
from .registry import FUNCTIONS, METHOD_NAMES, defop, d, run
from .signature import ArgParser


class _LazyRandom:
    """``gradcli.engine.random``, imported on first use: it loads NumPy's random
    module, which a script that draws no random numbers should not pay for."""

    def __getattr__(self, name: str) -> Any:
        from .. import random
        return getattr(random, name)


rng = _LazyRandom()


def _g(x: float) -> str:
    """A double as PyTorch's messages print it (``-1``, ``-0.5``, ``3e+38``)."""
    return f"{x:g}"


def _float_only(dtype: "dtypes.DType", kernel: str) -> None:
    if not dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy_name}'")


def manual_seed(seed: Any) -> Any:
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise TorchRuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}") from None
    rng.default_generator.manual_seed(seed)
    return rng.default_generator


def seed() -> int:
    return rng.default_generator.seed()


def initial_seed() -> int:
    return rng.default_generator.initial_seed()


_RAND = ArgParser([f"rand(int[] size, *, any generator=None, Tensor? out=None, {_OPTIONS})"])
_RANDN = ArgParser([f"randn(int[] size, *, any generator=None, Tensor? out=None, {_OPTIONS})"])


def _sampled(parser: ArgParser, sampler: Any, kernel: str) -> Any:
    def factory(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        check_cpu(b["device"])
        shape = b["size"]
        check_size(shape)
        dtype = b["dtype"] or dtypes.get_default_dtype()
        _float_only(dtype, kernel)
        return leaf(sampler(shape, dtype.np, generator=b["generator"]), dtype, b["requires_grad"])
    factory.__name__ = parser.name
    return factory


rand = _sampled(_RAND, lambda *a, **k: rng.uniform(*a, **k), "check_uniform_bounds")
randn = _sampled(_RANDN, lambda *a, **k: rng.normal(*a, **k), "normal_kernel_cpu")

_RANDINT = ArgParser([
    f"randint(int high, int[] size, *, any generator=None, Tensor? out=None, {_OPTIONS})",
    f"randint(int low, int high, int[] size, *, any generator=None, Tensor? out=None, {_OPTIONS})",
])


def randint(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDINT.parse(args, kwargs)
    check_cpu(b["device"])
    low, high = b.get("low", 0), b["high"]
    for v in (low, high):
        if not -2 ** 63 <= v < 2 ** 63:
            raise TorchValueError("Overflow when unpacking long long")
    if low >= high:
        raise TorchRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = b["size"]
    check_size(shape)
    dtype = b["dtype"] or dtypes.int64
    return leaf(rng.randint(low, high, shape, dtype.np, generator=b["generator"]), dtype, b["requires_grad"])


_RANDPERM = ArgParser([f"randperm(int n, *, any generator=None, Tensor? out=None, {_OPTIONS})"])


def randperm(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDPERM.parse(args, kwargs)
    n = b["n"]
    if n < 0:
        raise TorchRuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    check_size((n,))
    dtype = b["dtype"] or dtypes.int64
    if dtype is dtypes.bool_:
        raise TorchNotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dtype is dtypes.float32 and n > 2 ** 24 + 1:
        raise TorchRuntimeError("n cannot be greater than 2^24+1 for Float type.")
    return leaf(rng.randperm(n, dtype.np, generator=b["generator"]), dtype, b["requires_grad"])


# -- *_like ---------------------------------------------------------------------------------------

def _like_array(src: Tensor, dtype: "dtypes.DType") -> np.ndarray:
    # Allocated with the input's strides (torch's empty_like), so draws follow memory order.
    return rng.empty_like(src._data, dtype.np)


def _like_parser(name: str, extra: str = "") -> ArgParser:
    return ArgParser([f"{name}(Tensor input, {extra}*, {_OPTIONS}, any memory_format=None)"])


def _rand_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _like_parser("rand_like").parse(args, kwargs)
    dtype = b["dtype"] or b["input"]._dtype
    _float_only(dtype, "check_uniform_bounds")
    out = _like_array(b["input"], dtype)
    rng.uniform_(out)
    return leaf(out, dtype, b["requires_grad"])


def _randn_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _like_parser("randn_like").parse(args, kwargs)
    dtype = b["dtype"] or b["input"]._dtype
    _float_only(dtype, "normal_kernel_cpu")
    out = _like_array(b["input"], dtype)
    rng.normal_(out)
    return leaf(out, dtype, b["requires_grad"])


_RANDINT_LIKE = ArgParser([
    f"randint_like(Tensor input, int high, *, {_OPTIONS}, any memory_format=None)",
    f"randint_like(Tensor input, int low, int high, *, {_OPTIONS}, any memory_format=None)",
])


def _randint_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDINT_LIKE.parse(args, kwargs)
    low, high = b.get("low", 0), b["high"]
    if low >= high:
        raise TorchRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dtype = b["dtype"] or b["input"]._dtype
    out = _like_array(b["input"], dtype)
    rng.randint_(out, low, high)
    return leaf(out, dtype, b["requires_grad"])


# -- torch.normal ------------------------------------------------------------------------------------

def _check_std(std: Any) -> None:
    if isinstance(std, Tensor):
        if (std._data < 0).any():
            raise TorchRuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise TorchRuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


def _normal_forward(b: dict) -> Any:
    mean, std = b["mean"], b["std"]
    m = mean._data if not mean._wrapped else float(mean.item())
    s = std._data if not std._wrapped else float(std.item())
    _check_std(std if not std._wrapped else s)
    return rng.normal_tensor(m, s)


NORMAL = defop("_normal_tensor", "_normal_tensor(Tensor mean, Tensor std)", _normal_forward,
               node=lambda b: ("NormalBackward3" if not b["mean"]._wrapped and not b["std"]._wrapped
                               else "NormalBackward1" if not b["mean"]._wrapped else "NormalBackward2"),
               inputs=("mean", "std"), numbers_as_tensors=True, function=False, method=False,
               derivs={"mean": d()(lambda g, s: g * 0), "std": d()(lambda g, s: g * 0)})

_NORMAL = ArgParser([
    "normal(Tensor mean, Tensor std=1, *, any generator=None, Tensor? out=None)",
    "normal(Tensor mean, float std=1, *, any generator=None, Tensor? out=None)",
    f"normal(float mean, Tensor std, *, any generator=None, Tensor? out=None)",
    f"normal(float mean, float std, int[] size, *, any generator=None, Tensor? out=None, {_OPTIONS})",
])


def normal(*args: Any, **kwargs: Any) -> Tensor:
    overload, b = _NORMAL.parse(args, kwargs)
    if overload == 3:
        _check_std(b["std"])
        shape = b["size"]
        check_size(shape)
        dtype = b["dtype"] or dtypes.get_default_dtype()
        values = rng.normal(shape, dtype.np, b["mean"], b["std"], generator=b["generator"])
        return leaf(values, dtype, b["requires_grad"])
    return run(NORMAL, {"mean": b["mean"], "std": b["std"]})


# -- in-place samplers -------------------------------------------------------------------------------

def _inplace_sampler(fill: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        from .registry import check_inplace_allowed
        from ..autograd import grad_mode
        if grad_mode.is_grad_enabled() and self.requires_grad:
            check_inplace_allowed(self)
        fill(self, *args, **kwargs)
        self._vc.value += 1
        return self
    return method


def _uniform_fill(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> None:
    _float_only(self._dtype, "check_uniform_bounds")
    if a > b:
        raise TorchRuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > to={_g(b)}")
    rng.uniform_(self._data, a, b, generator=generator)


def _normal_fill(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> None:
    _float_only(self._dtype, "normal_kernel_cpu")
    _check_std(std)
    rng.normal_(self._data, mean, std, generator=generator)


def _random_fill(self: Tensor, *args: Any, generator: Any = None) -> None:
    if not args:
        rng.random_(self._data, generator=generator)
        return
    low, high = (0, args[0]) if len(args) == 1 else args[:2]
    if high is None:
        rng.random_(self._data, generator=generator)
        return
    if low >= high:
        raise TorchRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    rng.randint_(self._data, low, high, generator=generator)


def _bernoulli_fill(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> None:
    if isinstance(p, Tensor):
        rng.bernoulli_(self._data, p._data, generator=generator)
        return
    if not 0 <= p <= 1:
        raise TorchRuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    rng.bernoulli_(self._data, float(p), generator=generator)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:  # noqa: A002
    if p is None:
        if ((input._data < 0) | (input._data > 1)).any():
            raise TorchRuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)")
        return leaf(rng.bernoulli(input._data, generator=generator), input._dtype, False)
    out = Tensor._make(_like_array(input, input._dtype), input._dtype)
    _bernoulli_fill(out, p, generator=generator)
    return out


def _install() -> None:
    FUNCTIONS.update({
        "manual_seed": manual_seed, "seed": seed, "initial_seed": initial_seed, "rand": rand, "randn": randn,
        "randint": randint, "randperm": randperm, "rand_like": _rand_like, "randn_like": _randn_like,
        "randint_like": _randint_like, "normal": normal, "bernoulli": bernoulli,
    })
    methods = {"uniform_": _inplace_sampler(_uniform_fill), "normal_": _inplace_sampler(_normal_fill),
               "random_": _inplace_sampler(_random_fill), "bernoulli_": _inplace_sampler(_bernoulli_fill),
               "bernoulli": lambda self, p=None, generator=None: bernoulli(self, p, generator=generator)}
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    METHOD_NAMES.update(methods)
    Tensor.__script_attrs__ = Tensor.__script_attrs__ | set(methods)


_install()
