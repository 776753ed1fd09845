"""Hand-written torch functions and Tensor methods that take their arguments as PyTorch's parser does.

An op family writes some functions by hand (``torch.equal``, ``Tensor.chunk``): without a
parser a bad argument would reach the Python code and fail there (``'str' object has no
attribute 'shape'``) instead of with PyTorch's TypeError.  ``parsed`` puts an ``ArgParser`` of
the function's PyTorch signatures in front of it; ``publish.register(..., sigs=...)`` uses it, so
the function form and the method form (``out=`` dropped, self not counted) each get theirs.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from .python_signature import LazySignature
from ..tensor import Tensor
from .signature import ArgParser
from .unbound import NO_SELF, wrong_self


def method_signature(sig: str) -> str:
    """The method form's signature: no ``out=`` (a Tensor method takes none)."""
    return sig.replace(", *, Tensor? out=None)", ")").replace(", Tensor? out=None", "")


def parsed(fn: Callable[..., Any], sigs: Sequence[str], method: bool = False,
           numbers_as_tensors: bool | str | tuple = False) -> Callable[..., Any]:
    """``fn`` behind a parser of ``sigs``: it is called with the bound arguments in the order of
    the overload that bound them (so its parameters need not carry PyTorch's names)."""
    sigs = [method_signature(s) for s in sigs] if method else list(sigs)
    state: list[Any] = []  # [parser, the parameter names of each overload], built on first use

    def parser() -> ArgParser:
        if not state:
            made = ArgParser(sigs, numbers_as_tensors, method=method)
            state.extend((made, [tuple(p.name for p in sig.params) for sig in made.signatures]))
        return state[0]

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if method and (not args or not isinstance(args[0], Tensor)):  # (through the class, a wrong self)
            raise wrong_self(sigs[0].partition("(")[0], args[0] if args else NO_SELF)
        index, bound = (state[0] if state else parser()).parse(args, kwargs)
        return fn(*[bound[name] for name in state[1][index]])
    call.__signature__ = LazySignature(parser, method=method)  # type: ignore[attr-defined]
    call.__checks_self__ = method  # type: ignore[attr-defined]
    del call.__wrapped__  # (inspect would otherwise read fn's own parameters)
    return call
