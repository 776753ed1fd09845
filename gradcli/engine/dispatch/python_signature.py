"""``inspect.Signature`` for callables that parse PyTorch signatures themselves.

A generated ``torch.sum`` is ``(*args, **kwargs)`` in Python; its real
parameters are in its PyTorch signatures.  ``LazySignature`` is the
``__signature__`` such a callable carries, so ``inspect.signature`` (the REPL's
keyword completion, ``help``-like tools) sees ``(input, *, dtype=None, dim,
keepdim=False, out=None)``.  It is built on first look: parsing every
signature at start-up would cost time for names a script never inspects.

Overloads: the first one gives the positional parameters; names only other
overloads have follow as keyword-only.  Annotations are PyTorch's type names.
"""

from __future__ import annotations

import inspect
import keyword
from typing import Any, Callable

from .signature import REQUIRED, ArgParser

_EMPTY = inspect.Parameter.empty


class LazySignature(inspect.Signature):
    __slots__ = ("_source", "_method")

    def __init__(self, source: Callable[[], Any], method: bool = False) -> None:
        # (Signature's own __init__ would need the parameters now.)
        self._source = source  # returns the ArgParser (or an object with ``signatures``)
        self._method = method  # a Tensor method: its first parameter is self
        self._return_annotation = _EMPTY

    @property
    def parameters(self) -> Any:
        try:
            return self._parameters
        except AttributeError:
            params = parameters_of(self._source(), self._method)
            self._parameters = inspect.Signature(params).parameters
            return self._parameters

    def replace(self, **changes: Any) -> inspect.Signature:
        # (what inspect does to make a bound method's signature: a plain Signature from here on)
        return inspect.Signature(tuple(self.parameters.values())).replace(**changes)


def signed(parser: Any, method: bool = False) -> Callable[[Any], Any]:
    """Decorator: a ``(*args, **kwargs)`` callable that parses its arguments with ``parser`` (an
    ``ArgParser`` or ``LazyParser``) takes those parameters, as ``inspect.signature`` will say;
    ``method`` for a Tensor method (its first parameter is self)."""
    def mark(fn: Any) -> Any:
        fn.__signature__ = LazySignature(lambda: parser, method=method)
        return fn
    return mark


def parameters_of(parser: ArgParser, method: bool = False) -> list[inspect.Parameter]:
    """The parameters of all of ``parser``'s overloads as one valid Python parameter list."""
    params: list[inspect.Parameter] = []
    seen: set[str] = set()
    keyword_only = False
    for index, sig in enumerate(parser.signatures):
        for position, p in enumerate(sig.params):
            name = "self" if method and position == 0 else p.name
            if name in seen or (method and position == 0 and index > 0) or keyword.iskeyword(name):
                continue  # (random_'s ``from`` cannot be passed by name in Python either)
            seen.add(name)
            default = _EMPTY if p.default is REQUIRED else p.default
            # a later overload's names, and a required one after a defaulted one, are keyword-only
            if p.kwonly or index > 0 or (default is _EMPTY and params and params[-1].default is not _EMPTY):
                keyword_only = True
            kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
            params.append(inspect.Parameter(name, kind, default=default, annotation=p.type))
    return params
