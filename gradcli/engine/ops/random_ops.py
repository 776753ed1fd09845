"""The random factories and in-place samplers of the torch API, on the exact generator.

Argument parsing and PyTorch's validation messages live here; the numbers
come from ``gradcli.engine.random`` (bit-for-bit PyTorch after manual_seed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.formulas import d
from ..autograd.inplace import check_inplace_allowed
from ..device import check_cpu
from ..dispatch.limits import check_size
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.python_signature import signed
from ..dispatch.signature import ArgParser, _Mismatch, _is_int_like, py_type_name
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..lazy_random import rng
from ..shape_rules import broadcast_shapes
from ..tensor import Tensor
from ..warnings import warn
from .factories import _OPTIONS, leaf

CATALOG = Catalog()
defop = CATALOG.defop




def _g(x: float) -> str:
    """A double as PyTorch's messages print it (``-1``, ``-0.5``, ``3e+38``)."""
    return f"{x:g}"


def _float_only(dtype: "dtypes.DType", kernel: str) -> None:
    if not dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy_name}'")


def manual_seed(seed: Any) -> Any:
    """``torch.manual_seed``: Python's ``int(seed)`` first (its errors are Python's)."""
    try:
        seed = int(seed)
    except ValueError as e:
        raise TorchValueError(str(e)) from None
    except TypeError as e:
        raise TorchTypeError(str(e)) from None
    rng.default_generator.manual_seed(seed)
    return rng.default_generator


def seed() -> int:
    return rng.default_generator.seed()


def initial_seed() -> int:
    return rng.default_generator.initial_seed()


class _Parser(ArgParser):
    """An ``ArgParser`` whose errors follow PyTorch's ``print_error`` for overload lists.

    - An int list whose first element is an int matches; a later bad element
      then fails on its own (``randn(2, n / 2)``, ``randint(0, 3, (2, 2.0))``):
      ``failed to unpack the object at pos 2 ...``.
    - Otherwise an overload is plausible when the number of arguments given
      lies between its required and total counts (a required ``generator``
      counts); only one plausible overload reports its own error.
    """

    __slots__ = ()

    def parse(self, args: Any, kwargs: dict) -> tuple[int, dict]:
        gen = kwargs.get("generator")
        if gen is not None and not isinstance(gen, rng.Generator):
            if len(self.signatures) == 1:
                raise TorchTypeError(
                    f"{self.name}(): argument 'generator' must be torch.Generator, not {py_type_name(gen)}")
            raise _generic_error(self, list(args), kwargs, 1 if self.method else 0)
        return super().parse(args, kwargs)

    def _error(self, args: Any, kwargs: dict, offset: int) -> Exception:
        if len(self.signatures) == 1:  # parsed with errors raised (raw_parse)
            return ArgParser._error(self, args, kwargs, offset)
        args = list(args)
        for sig in self.signatures:
            if sig.hidden:
                continue
            unpack = _unpack_failure(sig, args, kwargs, offset, self.numbers_as_tensors)
            if unpack is not None:
                return TorchTypeError(unpack)
        n = len(args) + len(kwargs)
        plausible = [s for s in self.signatures if not s.hidden and s.min_args <= n <= s.max_args]
        if len(plausible) == 1:
            try:
                plausible[0].bind(args, kwargs, self.numbers_as_tensors, offset)
            except _Mismatch as m:
                return TorchTypeError(_list_message(plausible[0], args, kwargs, offset) or str(m))
        return _generic_error(self, args, kwargs, offset)


def _int_list_slot(sig: Any, args: list, kwargs: dict, offset: int) -> tuple[Any, Any, Any]:
    """Where ``sig``'s int list is given: (param, value, how) or Nones."""
    positional = [p for p in sig.params if not p.kwonly]
    for i, p in enumerate(positional):
        if p.base != "int[]":
            continue
        if i < len(args):
            if i == len(positional) - 1 and len(positional) == offset + 1 and _is_int_like(args[i]):
                return p, tuple(args[i:]), ("varargs", i)
            return p, args[i], ("pos", i)
        if p.name in kwargs:
            return p, kwargs[p.name], ("kw", p.name)
    return None, None, None


def _unpack_failure(sig: Any, args: list, kwargs: dict, offset: int, numbers: Any) -> str | None:
    p, value, how = _int_list_slot(sig, args, kwargs, offset)
    if p is None or not isinstance(value, (tuple, list)) or not value or not _is_int_like(value[0]):
        return None
    bad = next((j for j, v in enumerate(value) if not _is_int_like(v)), None)
    if bad is None:
        return None
    kind, where = how
    a, k = list(args), dict(kwargs)
    if kind == "varargs":
        a = a[:where] + [(1,)]
    elif kind == "pos":
        a[where] = (1,)
    else:
        k[where] = (1,)
    try:
        sig.bind(a, k, numbers, offset)
    except _Mismatch:
        return None
    return (f"{sig.name}(): argument '{p.name}' failed to unpack the object at pos {bad + 1} with error "
            f"\"type must be tuple of ints,but got {py_type_name(value[bad])}\"")


def _list_message(sig: Any, args: list, kwargs: dict, offset: int) -> str | None:
    """PyTorch's wording for a list whose first element is not an int."""
    p, value, how = _int_list_slot(sig, args, kwargs, offset)
    if p is None or how[0] == "kw" or not isinstance(value, (tuple, list)) or not value or _is_int_like(value[0]):
        return None
    where = f" (position {how[1] + 1 - offset})" if how[0] == "pos" else ""
    return (f"{sig.name}(): argument '{p.name}'{where} must be tuple of ints, but found element of type "
            f"{py_type_name(value[0])} at pos 0")


def _generic_error(parser: ArgParser, args: list, kwargs: dict, offset: int) -> Exception:
    # ArgParser's listing: make every overload implausible so it lists them all.
    saved = [(s.min_args, s.max_args) for s in parser.signatures]
    try:
        for s in parser.signatures:
            s.min_args, s.max_args = 1 << 30, -1
        return ArgParser._error(parser, args, kwargs, offset)
    finally:
        for s, (lo, hi) in zip(parser.signatures, saved):
            s.min_args, s.max_args = lo, hi


def _parser(*sigs: str, method: bool = False) -> ArgParser:
    """PyTorch's overload list for a random function, as its messages show it.

    Factories come in pairs: one overload takes a required ``generator``, the
    other none.  PyTorch lets separate ints stand for a size (``rand(2, 3)``)
    only when the size is the sole positional argument, so ``randint(0, 10)``
    names its bad ``size`` rather than listing every overload.
    """
    parser = _Parser(list(sigs), method=method)
    for sig in parser.signatures:
        positional = [p for p in sig.params if not p.kwonly]
        if len(positional) != 1 + method:
            sig.varargs_param = None
    return parser


def _with_generator(sig: str) -> tuple[str, str]:
    """``sig`` (with a ``GEN`` slot after ``*,``) with a required generator, and without."""
    return sig.replace("GEN", "generator generator, "), sig.replace("GEN", "")


_FACTORY = f"Tensor? out=None, {_OPTIONS}"
_RAND = _parser(*_with_generator(f"rand(int[] size, *, GEN{_FACTORY})"))
_RANDN = _parser(*_with_generator(f"randn(int[] size, *, GEN{_FACTORY})"))


def _generator(b: dict, name: str = "") -> Any:
    """The bound ``generator=`` (None: the default one); ``_Parser`` checked its type."""
    return b.get("generator")


def _sampled(parser: ArgParser, sampler: Any, kernel: str) -> Any:
    def factory(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        check_cpu(b["device"])
        shape = b["size"]
        check_size(shape)
        dtype = b["dtype"] or dtypes.get_default_dtype()
        _float_only(dtype, kernel)
        return leaf(sampler(shape, dtype.np, generator=_generator(b, parser.name)), dtype, b["requires_grad"])
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
    shape = b["size"]
    check_size(shape)
    dtype = b["dtype"] or dtypes.int64
    _check_from_to(low, high, dtype)
    return leaf(rng.randint(low, high, shape, dtype.np, generator=_generator(b, "randint")), dtype, b["requires_grad"])


_RANDPERM = _parser(*_with_generator(f"randperm(int n, *, GEN{_FACTORY})"))


@signed(_RANDPERM)
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
    return leaf(rng.randperm(n, dtype.np, generator=_generator(b, "randperm")), dtype, b["requires_grad"])


# -- *_like ---------------------------------------------------------------------------------------

def _like_array(src: Tensor, dtype: "dtypes.DType") -> np.ndarray:
    # Allocated with the input's strides (torch's empty_like), so draws follow memory order.
    return rng.empty_like(src._data, dtype.np)


_LIKE = f"memory_format? memory_format=None, {_OPTIONS}"
_RAND_LIKE = _parser(*_with_generator(f"rand_like(Tensor input, *, GEN{_LIKE})"))
_RANDN_LIKE = _parser(*_with_generator(f"randn_like(Tensor input, *, GEN{_LIKE})"))


@signed(_RAND_LIKE)
def _rand_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RAND_LIKE.parse(args, kwargs)
    dtype = b["dtype"] or b["input"]._dtype
    _float_only(dtype, "check_uniform_bounds")
    out = _like_array(b["input"], dtype)
    rng.uniform_(out, generator=_generator(b, "rand_like"))
    return leaf(out, dtype, b["requires_grad"])


@signed(_RANDN_LIKE)
def _randn_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _RANDN_LIKE.parse(args, kwargs)
    dtype = b["dtype"] or b["input"]._dtype
    _float_only(dtype, "normal_kernel_cpu")
    out = _like_array(b["input"], dtype)
    rng.normal_(out, generator=_generator(b, "randn_like"))
    return leaf(out, dtype, b["requires_grad"])


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
               derivs={"mean": d()(lambda g, s: g * 0), "std": d()(lambda g, s: g * 0)})

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
        check_size(shape)
        dtype = b["dtype"] or dtypes.get_default_dtype()
        values = rng.normal(shape, dtype.np, b["mean"], b["std"], generator=_generator(b, "normal"))
        return leaf(values, dtype, b["requires_grad"])
    return run(NORMAL, {"mean": b["mean"], "std": b["std"], "generator": _generator(b, "normal")})


# -- in-place samplers -------------------------------------------------------------------------------

_GEN = "*, generator? generator=None"
_UNIFORM_ = _parser(f"uniform_(Tensor self, float from=0, float to=1, {_GEN})", method=True)
_NORMAL_ = _parser(f"normal_(Tensor self, float mean=0, float std=1, {_GEN})", method=True)
_RANDOM_ = _parser(f"random_(Tensor self, {_GEN})", f"random_(Tensor self, int from, int to, {_GEN})",
                   f"random_(Tensor self, int to, {_GEN})", method=True)
_BERNOULLI_ = _parser(f"bernoulli_(Tensor self, Tensor p, {_GEN})",
                      f"bernoulli_(Tensor self, float p=0.5, {_GEN})", method=True)
_BERNOULLI = _parser(f"bernoulli(Tensor input, {_GEN}, Tensor? out=None)",
                     f"bernoulli(Tensor input, float p, {_GEN})")
_BERNOULLI_METHOD = _parser(f"bernoulli(Tensor self, {_GEN})", f"bernoulli(Tensor self, float p, {_GEN})",
                            method=True)


def _inplace_sampler(parser: ArgParser, fill: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        overload, b = parser.parse((self, *args), kwargs)
        if grad_mode.is_grad_enabled() and self.requires_grad:
            check_inplace_allowed(self)
        fill(self, overload, b, _generator(b, parser.name))
        self._vc.value += 1
        return self
    method.__name__ = parser.name
    return signed(parser, method=True)(method)


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


def _bernoulli_fill(self: Tensor, overload: int, b: dict, generator: Any) -> None:
    p = b["p"]
    if isinstance(p, Tensor):
        rng.bernoulli_(self._data, p._data, generator=generator)
        return
    if not 0 <= p <= 1:
        raise TorchRuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    rng.bernoulli_(self._data, float(p), generator=generator)


def _bernoulli_forward(b: dict) -> Any:
    p = b["input"]._data
    if not np.issubdtype(p.dtype, np.floating):
        raise TorchNotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{b['input']._dtype.legacy_name}'")
    if not ((p >= 0) & (p <= 1)).all():  # a NaN fails too
        raise TorchRuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)")
    return rng.bernoulli(p, generator=b.get("generator"))


BERNOULLI = defop("_bernoulli_tensor", "_bernoulli_tensor(Tensor input)", _bernoulli_forward,
                  node="BernoulliBackward0", inputs=("input",), function=False, method=False,
                  derivs={"input": d()(lambda g, s: g * 0)})


def _bernoulli(parser: ArgParser, args: tuple, kwargs: dict) -> Tensor:
    overload, b = parser.parse(args, kwargs)
    x = b["input"] if "input" in b else b["self"]
    gen = _generator(b, "bernoulli")
    if overload == 0:
        return run(BERNOULLI, {"input": x, "generator": gen, "out": b.get("out")})
    out = Tensor._make(_like_array(x, x._dtype), x._dtype)
    _bernoulli_fill(out, 1, {"p": b["p"]}, gen)
    return out


@signed(_BERNOULLI)
def bernoulli(*args: Any, **kwargs: Any) -> Tensor:
    return _bernoulli(_BERNOULLI, args, kwargs)


@signed(_BERNOULLI_METHOD, method=True)
def _bernoulli_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return _bernoulli(_BERNOULLI_METHOD, (self, *args), kwargs)


for _name, _fn in (
        ("manual_seed", manual_seed), ("seed", seed), ("initial_seed", initial_seed), ("rand", rand),
        ("randn", randn), ("randint", randint), ("randperm", randperm), ("rand_like", _rand_like),
        ("randn_like", _randn_like), ("randint_like", _randint_like), ("normal", normal), ("bernoulli", bernoulli)):
    CATALOG.register(_fn, _name, torch=True)
for _name, _fn in (
        ("uniform_", _inplace_sampler(_UNIFORM_, _uniform_fill)), ("normal_", _inplace_sampler(_NORMAL_, _normal_fill)),
        ("random_", _inplace_sampler(_RANDOM_, _random_fill)),
        ("bernoulli_", _inplace_sampler(_BERNOULLI_, _bernoulli_fill)), ("bernoulli", _bernoulli_method)):
    CATALOG.register(_fn, _name, method=True)
