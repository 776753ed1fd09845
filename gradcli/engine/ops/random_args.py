"""What the random family's modules share: their catalog, PyTorch's overload-list errors, ``generator=``.

The family is ``random_ops`` (factories and in-place samplers), ``sampling``
(bernoulli, multinomial) and ``generators`` (``torch.Generator``, seeding);
they publish through the one catalog here, which ``random_ops`` exports.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.inplace import check_inplace_allowed
from ..dispatch.limits import check_size
from ..dispatch.memory import INTERNAL_OVERLAP_MESSAGE, repeats
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.signature import ArgParser, _Mismatch, _is_int_like, is_generator, py_type_name
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ..lazy_random import rng
from ..tensor import Tensor

CATALOG = Catalog()
defop = CATALOG.defop


def _g(x: float) -> str:
    """A double as PyTorch's messages print it (``-1``, ``-0.5``, ``3e+38``)."""
    return f"{x:g}"


def _float_only(dtype: "dtypes.DType", kernel: str) -> None:
    if not dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy_name}'")



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
        if gen is not None and not is_generator(gen):
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



def engine_generator(gen: Any) -> Any:
    """The engine generator behind a script's ``torch.Generator`` (None: the default one)."""
    return None if gen is None else gen.engine()


def _generator(b: dict, name: str = "") -> Any:
    """The engine generator of the bound ``generator=`` (None: the default one); the parser
    checked its type."""
    return engine_generator(b.get("generator"))



def _like_array(src: Tensor, dtype: "dtypes.DType") -> np.ndarray:
    # Allocated with the input's strides (torch's empty_like), so draws follow memory order.
    check_size(src._data.shape)  # (an expanded input holds less than this; draws are in float64)
    return rng.empty_like(src._data, dtype.np)



def _inplace_sampler(parser: ArgParser, fill: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        overload, b = parser.parse((self, *args), kwargs)
        if grad_mode.is_grad_enabled() and self.requires_grad:
            check_inplace_allowed(self)
        if repeats(self._data):   # (PyTorch's TensorIterator refuses to write an expanded tensor)
            raise TorchRuntimeError(INTERNAL_OVERLAP_MESSAGE)
        fill(self, overload, b, _generator(b, parser.name))
        self._vc.value += 1
        return self
    method.__name__ = parser.name
    return signed(parser, method=True)(method)

