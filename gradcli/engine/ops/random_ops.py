"""The random factories and in-place samplers of the torch API, on the exact generator.

Argument parsing and PyTorch's validation messages live here; the numbers
come from ``gradcli.engine.random`` (bit-for-bit PyTorch after manual_seed).
The family's other modules (``sampling``: bernoulli, multinomial;
``generators``: ``torch.Generator`` and seeding) publish through the same
catalog, exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..batching import state as vmap_state
from ..batching.randomness import batched_draw, draws, wrapped
from .. import dtypes
from ..autograd.formulas import SAMPLED, d
from ..device import check_cpu
from ..dispatch.limits import check_size
from ..dispatch.runner import run
from ..dispatch.python_signature import signed
from ..dispatch.signature import ArgParser
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchValueError
from ..lazy_random import rng
from ..shape_rules import broadcast_shapes
from ..tensor import Tensor
from ..warnings import warn
from . import generators, sampling  # noqa: F401  (they fill the family's catalog)
from .factories import _OPTIONS, leaf
from .random_args import (CATALOG, _float_only, _g, _generator, _inplace_sampler, _like_array, _parser,
                          _with_generator, defop, engine_generator)

__all__ = ["CATALOG"]

_FACTORY = f"Tensor? out=None, {_OPTIONS}"
_RAND = _parser(*_with_generator(f"rand(int[] size, *, GEN{_FACTORY})"))
_RANDN = _parser(*_with_generator(f"randn(int[] size, *, GEN{_FACTORY})"))


def _sampled(parser: ArgParser, sampler: Any, kernel: str) -> Any:
    def factory(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        check_cpu(b["device"])
        dtype = b["dtype"] or dtypes.get_default_dtype()
        shape, level = draws(b["size"])   # (inside vmap: randomness= decides)
        check_size(shape, dtype.itemsize)
        _float_only(dtype, kernel)
        with batched_draw():
            t = leaf(sampler(shape, dtype.np, generator=_generator(b, parser.name)), dtype, b["requires_grad"])
        return wrapped(t, level)
    factory.__name__ = parser.name
    return signed(parser)(factory)


rand = _sampled(_RAND, lambda *a, **k: rng.uniform(*a, **k), "check_uniform_bounds")
randn = _sampled(_RANDN, lambda *a, **k: rng.normal(*a, **k), "normal_kernel_cpu")

_RANDINT = _parser(*_with_generator(f"randint(int high, int[] size, *, GEN{_FACTORY})"),
                   *_with_generator(f"randint(int low, int high, int[] size, *, GEN{_FACTORY})"))


def _check_from_to(low: int, high: int, dtype: "dtypes.DType") -> None:
    """``random_from_to_impl``'s checks, in its order (ATen's DistributionTemplates.h).

    ``from < to``; floating dtypes move the bounds inward where ``from + 1`` or
    ``to - 1`` is not representable and check again; then ``from`` and
    ``to - 1`` must fit the dtype (integers: an error; floats beyond 2**24 /
    2**53: a warning).  Drawing into an empty tensor still runs every check.
    """
    if low >= high:
        raise TorchRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    name = dtype.c_name
    if dtype.is_floating_point:
        low, high = rng.adjust_float_bounds(low, high, dtype.np)
        if low >= high:
            raise TorchRuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                f"but got from={low} >= to={high}")
        digits = int(np.finfo(dtype.np).nmant) + 1
        for value, what in ((low, "from"), (high - 1, "to - 1")):
            if not -(2 ** digits) <= value <= 2 ** digits:
                warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {name} "
                     "can support discrete uniform distribution only within this range. This warning will "
                     "become an error in version 1.7 release, please fix the code in advance (Triggered "
                     "internally at /__w/pytorch/pytorch/aten/src/ATen/native/DistributionTemplates.h:111.)")
        return
    if dtype is dtypes.bool_:
        lo, hi = 0, 1
    else:
        info = np.iinfo(dtype.np)
        lo, hi = int(info.min), int(info.max)
    for value, what in ((low, "from"), (high - 1, "to - 1")):
        if not lo <= value <= hi:
            raise TorchRuntimeError(f"{what} is out of bounds for {name}")


@signed(_RANDINT)
def randint(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDINT.parse(args, kwargs)
    check_cpu(b["device"])
    low, high = b.get("low", 0), b["high"]
    for v in (low, high):
        if not -2 ** 63 <= v < 2 ** 63:
            raise TorchValueError("Overflow when unpacking long long")
    dtype = b["dtype"] or dtypes.int64
    shape, level = draws(b["size"])
    check_size(shape, dtype.itemsize)
    _check_from_to(low, high, dtype)
    with batched_draw():
        t = leaf(rng.randint(low, high, shape, dtype.np, generator=_generator(b, "randint")), dtype, b["requires_grad"])
    return wrapped(t, level)


_RANDPERM = _parser(*_with_generator(f"randperm(int n, *, GEN{_FACTORY})"))


@signed(_RANDPERM)
def randperm(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDPERM.parse(args, kwargs)
    n = b["n"]
    if n < 0:
        raise TorchRuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dtype = b["dtype"] or dtypes.int64
    check_size((n,), dtype.itemsize)
    if dtype is dtypes.bool_:
        raise TorchNotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dtype is dtypes.float32 and n > 2 ** 24 + 1:
        raise TorchRuntimeError("n cannot be greater than 2^24+1 for Float type.")
    return leaf(rng.randperm(n, dtype.np, generator=_generator(b, "randperm")), dtype, b["requires_grad"])


# -- *_like ---------------------------------------------------------------------------------------

_LIKE = f"memory_format? memory_format=None, {_OPTIONS}"
_RAND_LIKE = _parser(*_with_generator(f"rand_like(Tensor input, *, GEN{_LIKE})"))
_RANDN_LIKE = _parser(*_with_generator(f"randn_like(Tensor input, *, GEN{_LIKE})"))


@signed(_RAND_LIKE)
def _rand_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RAND_LIKE.parse(args, kwargs)
    dtype = b["dtype"] or b["input"]._dtype
    _float_only(dtype, "check_uniform_bounds")
    out, level = _like_draw(b["input"], dtype)
    with batched_draw():
        rng.uniform_(out, generator=_generator(b, "rand_like"))
    return wrapped(leaf(out, dtype, b["requires_grad"]), level)


@signed(_RANDN_LIKE)
def _randn_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDN_LIKE.parse(args, kwargs)
    dtype = b["dtype"] or b["input"]._dtype
    _float_only(dtype, "normal_kernel_cpu")
    out, level = _like_draw(b["input"], dtype)
    with batched_draw():
        rng.normal_(out, generator=_generator(b, "randn_like"))
    return wrapped(leaf(out, dtype, b["requires_grad"]), level)


def _like_draw(src: Tensor, dtype: "dtypes.DType") -> tuple[np.ndarray, int]:
    """The array a ``*_like`` sampler fills: ``src``'s layout, or inside vmap a C-ordered one of the
    shape randomness= asks for (with the level to wrap it at)."""
    if not vmap_state.depth:
        return _like_array(src, dtype), 0
    shape, level = draws(tuple(src.shape))
    check_size(shape, dtype.itemsize)
    return np.empty(shape, dtype=dtype.np), level


_RANDINT_LIKE = _parser(*_with_generator(f"randint_like(Tensor input, int low, int high, *, GEN{_LIKE})"),
                        *_with_generator(f"randint_like(Tensor input, Tensor high, *, GEN{_LIKE})"),
                        *_with_generator(f"randint_like(Tensor input, int high, *, GEN{_LIKE})"))


@signed(_RANDINT_LIKE)
def _randint_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDINT_LIKE.parse(args, kwargs)
    low, high = b.get("low", 0), b["high"]
    if isinstance(high, Tensor):
        if high.ndim != 0:
            raise TorchRuntimeError("high must be a scalar tensor and on CPU")
        high = int(high.item())
    dtype = b["dtype"] or b["input"]._dtype
    _check_from_to(low, high, dtype)
    out = _like_array(b["input"], dtype)
    rng.randint_(out, low, high, generator=_generator(b, "randint_like"))
    return leaf(out, dtype, b["requires_grad"])


# -- torch.normal ------------------------------------------------------------------------------------

def _check_std(std: Any) -> None:
    if isinstance(std, Tensor):
        if std._data.size and not std._data.min() >= 0:  # a NaN fails too
            raise TorchRuntimeError("normal expects all elements of std >= 0.0")
    elif not std >= 0:
        raise TorchRuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


def _normal_forward(b: dict) -> Any:
    mean, std = b["mean"], b["std"]
    m = mean._data if not mean._wrapped else float(mean.item())
    s = std._data if not std._wrapped else float(std.item())
    _check_std(std if not std._wrapped else s)
    if not mean._wrapped and not std._wrapped:
        broadcast_shapes(mean.shape, std.shape)
    out_dtype = mean._dtype if not mean._wrapped else std._dtype
    _float_only(out_dtype, "normal_kernel_cpu")
    return rng.normal_tensor(m, s, generator=b.get("generator"))


NORMAL = defop("_normal_tensor", "_normal_tensor(Tensor mean, Tensor std)", _normal_forward,
               node=lambda b: ("NormalBackward3" if not b["mean"]._wrapped and not b["std"]._wrapped
                               else "NormalBackward1" if not b["mean"]._wrapped else "NormalBackward2"),
               inputs=("mean", "std"), numbers_as_tensors=True, function=False, method=False,
               vmap="random_of_batch", derivs={"mean": d(rule=SAMPLED)(lambda g, s: g * 0), "std": d(rule=SAMPLED)(lambda g, s: g * 0)})

_NORMAL = _parser(
    "normal(Tensor mean, Tensor std, *, generator? generator=None, Tensor? out=None)",
    "normal(Tensor mean, float std=1, *, generator? generator=None, Tensor? out=None)",
    "normal(float mean, Tensor std, *, generator? generator=None, Tensor? out=None)",
    f"normal(float mean, float std, int[] size, *, generator? generator=None, {_FACTORY})",
)


@signed(_NORMAL)
def normal(*args: Any, **kwargs: Any) -> Tensor:
    overload, b = _NORMAL.parse(args, kwargs)
    if overload == 3:
        _check_std(b["std"])
        shape = b["size"]
        dtype = b["dtype"] or dtypes.get_default_dtype()
        check_size(shape, dtype.itemsize)
        values = rng.normal(shape, dtype.np, b["mean"], b["std"], generator=_generator(b, "normal"))
        return leaf(values, dtype, b["requires_grad"])
    return run(NORMAL, {"mean": b["mean"], "std": b["std"], "generator": _generator(b, "normal")})


# -- in-place samplers -------------------------------------------------------------------------------

_GEN = "*, generator? generator=None"
_UNIFORM_ = _parser(f"uniform_(Tensor self, float from=0, float to=1, {_GEN})", method=True)
_NORMAL_ = _parser(f"normal_(Tensor self, float mean=0, float std=1, {_GEN})", method=True)
_RANDOM_ = _parser(f"random_(Tensor self, {_GEN})", f"random_(Tensor self, int from, int to, {_GEN})",
                   f"random_(Tensor self, int to, {_GEN})", method=True)


def _uniform_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    a, to = b["from"], b["to"]
    _float_only(self._dtype, "check_uniform_bounds")
    # check_uniform_bounds, in its order (a NaN bound is out of bounds)
    top = float(np.finfo(self._dtype.np).max)
    for value, what in ((a, "from"), (to, "to")):
        if not -top <= value <= top:
            raise TorchRuntimeError(f"{what} is out of bounds for {self._dtype.c_name}")
    if a > to:
        raise TorchRuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > to={_g(to)}")
    if not to - a <= top:
        kind = "Float" if self._dtype is dtypes.float32 else "Double"
        raise TorchRuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{kind}>::max(), but found to={_g(to)} and "
            f"from={_g(a)} which result in to-from to exceed the limit")
    rng.uniform_(self._data, a, to, generator=generator)


def _normal_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    _float_only(self._dtype, "normal_kernel_cpu")
    _check_std(b["std"])
    rng.normal_(self._data, b["mean"], b["std"], generator=generator)


def _random_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    if overload == 0:
        rng.random_(self._data, generator=generator)
        return
    low, high = b.get("from", 0), b["to"]
    _check_from_to(low, high, self._dtype)
    rng.randint_(self._data, low, high, generator=generator)


def _exponential_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    lambd = b["lambd"]
    if not self._dtype.is_floating_point:
        raise TorchRuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a floating point "
            f"but you specified {self._dtype.legacy_name}")
    if not lambd > 0:
        raise TorchRuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    rng.exponential_(self._data, lambd, generator=generator)


def _continuous_only(self: Tensor, name: str) -> None:
    if not self._dtype.is_floating_point:
        raise TorchRuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a floating point "
            f"but you specified {self._dtype.c_name}")


def _cauchy_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    _continuous_only(self, "Cauchy")
    if not b["sigma"] > 0:
        raise TorchRuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(b['sigma'])}")
    rng.cauchy_(self._data, b["median"], b["sigma"], generator=generator)


def _log_normal_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    if not b["std"] > 0:
        raise TorchRuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(b['std'])}")
    _float_only(self._dtype, "log_normal_cpu")
    rng.log_normal_(self._data, b["mean"], b["std"], generator=generator)


def _geometric_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    p = b["p"]
    if not 0 < p < 1:
        raise TorchRuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    if self._dtype is dtypes.bool_:
        raise TorchNotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    rng.geometric_(self._data, p, generator=generator)


def _poisson_forward(b: dict) -> Any:
    rates = b["self"]
    _float_only(rates._dtype, "poisson_cpu")
    return rng.poisson(rates._data, generator=engine_generator(b.get("generator")))


defop("poisson", "poisson(Tensor input, generator? generator=None)", _poisson_forward, node="PoissonBackward0",
      method=False, vmap="random_of_batch", derivs={"self": d(rule=SAMPLED)(lambda g, s: g * 0)})

_EXPONENTIAL_ = _parser(f"exponential_(Tensor self, float lambd=1, {_GEN})", method=True)
_CAUCHY_ = _parser(f"cauchy_(Tensor self, float median=0, float sigma=1, {_GEN})", method=True)
_LOG_NORMAL_ = _parser(f"log_normal_(Tensor self, float mean=1, float std=2, {_GEN})", method=True)
_GEOMETRIC_ = _parser(f"geometric_(Tensor self, float p, {_GEN})", method=True)

for _name, _fn in (
        ("rand", rand), ("randn", randn), ("randint", randint), ("randperm", randperm), ("rand_like", _rand_like),
        ("randn_like", _randn_like), ("randint_like", _randint_like), ("normal", normal)):
    CATALOG.register(_fn, _name, torch=True)
for _name, _fn in (
        ("uniform_", _inplace_sampler(_UNIFORM_, _uniform_fill)), ("normal_", _inplace_sampler(_NORMAL_, _normal_fill)),
        ("random_", _inplace_sampler(_RANDOM_, _random_fill)),
        ("exponential_", _inplace_sampler(_EXPONENTIAL_, _exponential_fill)),
        ("cauchy_", _inplace_sampler(_CAUCHY_, _cauchy_fill)),
        ("log_normal_", _inplace_sampler(_LOG_NORMAL_, _log_normal_fill)),
        ("geometric_", _inplace_sampler(_GEOMETRIC_, _geometric_fill))):
    CATALOG.register(_fn, _name, method=True)
