"""Argument parsing for torch functions and Tensor methods, with PyTorch's errors.

A signature is written in a compact form, for example
``"sum(Tensor input, int[1] dim, bool keepdim=False, *, dtype? dtype=None)"``.
An op may have several signatures (overloads); ``parse`` picks the first that
binds and otherwise raises the TypeError PyTorch's argument parser raises:
the precise message when only one overload is plausible for the number of
arguments given, or "received an invalid combination of arguments" listing
the overloads.

Types: ``Tensor`` (a Python number is accepted too only when the op says so,
see ``numbers_as_tensors``), ``Scalar`` (a Python number), ``int``,
``float``, ``bool``, ``str``, ``int[]`` (a tuple/list of ints, or the ints
themselves when it is the only positional parameter), ``int[1]`` (one int
or a tuple), ``Tensor[]`` (a sequence of tensors), ``dtype``, ``device``,
``any``; a ``?`` suffix admits None.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..device import Device, parse_device
from ..dtypes import DType
from ..errors import TorchNotImplementedError, TorchTypeError
from ..shape_rules import MAX_DIMS, check_ndim
from ..tensor import Tensor
from .int_arguments import Int64Overflow, NotAnInt, in_int64, int64, int64_tuple
from .invalid_arguments import format_invalid_args

REQUIRED = object()

_DISPLAY = {
    "Tensor": "Tensor", "Scalar": "Number", "int": "int", "float": "float", "bool": "bool",
    "str": "str", "int[]": "tuple of ints", "int[1]": "tuple of ints", "Tensor[]": "tuple of Tensors",
    "dtype": "torch.dtype", "device": "torch.device", "any": "object", "float[]": "tuple of floats",
    "layout": "torch.layout", "generator": "torch.Generator", "memory_format": "torch.memory_format",
}


def py_type_name(value: object) -> str:
    """A value's type as PyTorch's messages name it (its C ``tp_name``: ``numpy.ndarray``)."""
    if isinstance(value, Tensor):
        return "Tensor"
    cls = type(value)
    return f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__


class Param:
    __slots__ = ("type", "name", "default", "optional", "kwonly", "base")

    def __init__(self, text: str, kwonly: bool) -> None:
        decl, _, default = text.partition("=")
        type_, name = decl.strip().rsplit(" ", 1)
        self.optional = type_.endswith("?")
        self.base = type_.rstrip("?")
        self.type = type_
        self.name = name
        self.kwonly = kwonly
        self.default: Any = REQUIRED if not _ else _parse_default(default.strip())
        if self.base not in _DISPLAY:
            raise ValueError(f"unknown parameter type {type_!r}")

    def display(self) -> str:
        text = f"{_DISPLAY[self.base]} {self.name}"
        if self.default is not REQUIRED:
            text += f" = {_show_default(self.default)}"
        return text


def _parse_default(text: str) -> Any:
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith(("'", '"')):
        return text[1:-1]
    if text == "[]":
        return ()
    try:
        return int(text)
    except ValueError:
        return float(text)


def _show_default(value: Any) -> str:
    if value == () and isinstance(value, tuple):
        return "[]"
    if isinstance(value, str):
        return f'"{value}"'  # (as native_functions.yaml writes it: conv2d's str padding = "valid")
    return str(value)


class _Mismatch(Exception):
    """Why one signature did not bind (turned into PyTorch's message if it is the only one)."""


class Signature:
    __slots__ = ("name", "params", "min_args", "max_args", "hidden", "varargs_param", "_text", "numpy_aliases")

    def __init__(self, text: str, hidden: bool = False) -> None:
        self._text = text
        # PyTorch's C argument parser takes NUMPY_ALIASES; a function that is Python code in PyTorch
        # does not (``split``: ``Tensor.split(1, axis=0)`` is an unexpected keyword there)
        self.numpy_aliases = True
        self.name, _, rest = text.partition("(")
        body = rest.rsplit(")", 1)[0]
        params: list[Param] = []
        kwonly = False
        for piece in _split_params(body):
            if piece == "*":
                kwonly = True
                continue
            params.append(Param(piece, kwonly))
        self.params = params
        self.min_args = sum(1 for p in params if p.default is REQUIRED)
        self.max_args = len(params)
        self.hidden = hidden
        positional = [p for p in params if not p.kwonly]
        self.varargs_param = positional[-1] if positional and positional[-1].base == "int[]" else None

    def __repr__(self) -> str:
        return f"Signature({self._text!r})"

    def display(self, skip_self: bool) -> str:
        parts: list[str] = []
        star = False
        for i, p in enumerate(self.params):
            if skip_self and i == 0:
                continue
            if p.kwonly and not star:
                parts.append("*")
                star = True
            parts.append(p.display())
        return "(" + ", ".join(parts) + ")"

    def bind(self, args: Sequence, kwargs: dict, numbers_as_tensors: bool | str | tuple, offset: int) -> dict:
        """Bind or raise _Mismatch with PyTorch's wording (offset: 1 for methods' hidden self)."""
        params = self.params
        positional = [p for p in params if not p.kwonly]
        out: dict[str, Any] = {}
        args = list(args)
        # ones(2, 3) / x.view(2, 3): when an int[] is the only positional parameter
        # (besides the tensor itself), separate ints are gathered into it.
        if (len(positional) == offset + 1 and positional[offset].base == "int[]"
                and len(args) > offset and _is_int_like(args[offset])):
            rest = args[offset:]
            for j, a in enumerate(rest):
                if not _is_int_like(a):
                    raise _Mismatch(
                        f"{self.name}(): argument '{positional[offset].name}' failed to unpack the object "
                        f"at pos {j + 1} with error \"type must be tuple of ints,but got {py_type_name(a)}\"")
            args = args[:offset] + [tuple(rest)]
        if len(args) > len(positional):
            n = len(positional) - offset
            given = len(args) - offset
            least = self.min_args - offset
            if least != n:  # PyTorch's extra_args: a range when some are optional
                raise _Mismatch(
                    f"{self.name}() takes from {least} to {n} positional arguments but {given} were given")
            raise _Mismatch(
                f"{self.name}() takes {n} positional argument{'s' if n != 1 else ''} but "
                f"{given} {'were' if given != 1 else 'was'} given")
        # PyTorch's FunctionSignature::parse: the parameters in order, each from its position, else from
        # its keyword or a NumPy alias of it; then the keywords nothing took
        taken: set[str] = set()
        for i, p in enumerate(params):
            if i < len(args):
                value, position = args[i], i + 1 - offset
            else:
                key = _keyword_for(p.name, kwargs, self.numpy_aliases)
                if key is None:
                    if p.default is REQUIRED:
                        raise _Mismatch(_missing_message(self.name, params[i:]))
                    out[p.name] = p.default
                    continue
                taken.add(key)
                value, position = kwargs[key], None
            out[p.name] = self._convert(p, value, position, _numbers_for(p, params, numbers_as_tensors))
        if len(taken) < len(kwargs):
            # PyTorch's extra_kwargs: the first keyword (in the order given) that names no parameter
            # -- an alias counts as none, even one that was used -- or one given by position too
            for key in kwargs:
                index = next((i for i, q in enumerate(params) if q.name == key), None)
                if index is None:
                    raise _Mismatch(f"{self.name}() got an unexpected keyword argument '{key}'")
                if index < len(args):
                    raise _Mismatch(f"{self.name}() got multiple values for argument '{key}'")
        return out

    def _convert(self, p: Param, value: Any, position: int | None, numbers_as_tensors: bool) -> Any:
        if value is None and (p.optional or p.default is None):
            return None
        try:
            ok, converted = _check(p.base, value, numbers_as_tensors)
        except Int64Overflow as overflow:
            raise TorchTypeError(
                f"{self.name}(): argument '{p.name}' failed to unpack the object at pos {overflow.index + 1} "
                "with error \"Overflow when unpacking long long\"") from None
        except NotAnInt as bad:
            raise TorchTypeError(
                f"{self.name}(): argument '{p.name}' failed to unpack the object at pos {bad.index + 1} "
                f"with error \"type must be tuple of ints,but got {py_type_name(bad.value)}\"") from None
        if ok:
            if p.name in _SHAPE_PARAMS and type(converted) is tuple and len(converted) > MAX_DIMS:
                check_ndim(len(converted))  # (a shape NumPy cannot hold: refused before it is asked)
            return converted
        where = f" (position {position})" if position is not None else ""
        expected = _DISPLAY[p.base]
        if p.base in ("int[]", "int[1]") and _is_tuple_like(value) and value and position is not None:
            raise _Mismatch(f"{self.name}(): argument '{p.name}'{where} must be {expected}, but found element of "
                            f"type {py_type_name(value[0])} at pos 0")
        raise _Mismatch(
            f"{self.name}(): argument '{p.name}'{where} must be {expected}, not {py_type_name(value)}")


# The int[] parameters that are a tensor's shape (ones(size), view(size), repeat(repeats), ...).
_SHAPE_PARAMS = frozenset({"size", "shape", "sizes", "repeats"})


# The NumPy-style keywords PyTorch's argument parser accepts for these parameters
# (numpy_compatibility_arg_names): sum(x, axis=0, keepdims=True), add(x1=a, x2=b).  The
# parameter's own name wins; an alias given beside it is an unexpected keyword.
NUMPY_ALIASES: dict[str, tuple[str, ...]] = {
    "dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",),
}


# Functions gradcli parses with signatures that are Python code in PyTorch: no NumPy aliases.
PYTHON_LEVEL = frozenset({"split"})


def _keyword_for(name: str, kwargs: dict, aliases: bool) -> str | None:
    """The keyword that gives parameter ``name`` its value: its own, else the first alias given."""
    if name in kwargs:
        return name
    for alias in NUMPY_ALIASES.get(name, ()) if aliases else ():
        if alias in kwargs:
            return alias
    return None


def with_numpy_aliases(fn: Any, name: str) -> Any:
    """A hand-written ``fn`` whose Python parameters carry PyTorch's names (``dim``, ``input``, ...),
    taking their NUMPY_ALIASES as PyTorch's C functions do (``chunk(x, 2, axis=1)``).  An alias
    beside its parameter (by keyword or position) is PyTorch's unexpected keyword.  ``fn`` itself
    when it has none of those parameters or no inspectable signature."""
    code = getattr(fn, "__code__", None)  # (read off the code object: inspect.signature costs start-up time)
    if code is None or getattr(fn, "__signature__", None) is not None:
        return fn  # not a plain function, or one whose parser takes the aliases itself (LazySignature)
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    alias_of = {a: n for n in names for a in NUMPY_ALIASES.get(n, ())}
    if not alias_of:
        return fn
    positional = {n: i for i, n in enumerate(code.co_varnames[:code.co_argcount])}

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs and not alias_of.keys().isdisjoint(kwargs):
            for key in [k for k in kwargs if k in alias_of]:
                canonical = alias_of[key]
                if canonical in kwargs or positional.get(canonical, len(args)) < len(args):
                    raise TorchTypeError(f"{name}() got an unexpected keyword argument '{key}'")
                kwargs[canonical] = kwargs.pop(key)
        try:
            return fn(*args, **kwargs)
        except TypeError as error:
            from .unbound import call_refused  # (unbound imports this module)
            raise call_refused(error, fn, name) from None
    return call


def _missing_message(name: str, rest: Sequence["Param"]) -> str:
    # PyTorch's missing_args lists every required parameter from the first missing one on, and
    # says "1 required positional arguments" / "2 required positional argument" (its plural is
    # the wrong way round)
    names = [f'"{p.name}"' for p in rest if p.default is REQUIRED]
    return (f"{name}() missing {len(names)} required positional argument{'s' if len(names) == 1 else ''}: "
            + ", ".join(names))


def _numbers_for(p: "Param", params: Sequence["Param"], numbers_as_tensors: bool | str | tuple) -> bool:
    """Whether ``p`` takes a Python number for a Tensor: ``"other"`` means every Tensor but the
    first (``torch.le(x, 2)`` but not ``torch.le(2, x)``: a Scalar overload, not a conversion)."""
    if numbers_as_tensors == "other":
        return p is not params[0]
    if isinstance(numbers_as_tensors, tuple):  # only these parameters (masked_fill's value, not its mask)
        return p.name in numbers_as_tensors
    return bool(numbers_as_tensors)


def _split_params(body: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _is_int_like(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):  # PyTorch reads NumPy's integers as ints
        return True
    return isinstance(value, Tensor) and value.ndim == 0 and not value.dtype.is_floating_point \
        and value.dtype.name != "bool"


def _is_tuple_like(value: Any) -> bool:
    return isinstance(value, (tuple, list))


_PYTHON_TYPE_DTYPES = {float: "float64", int: "int64", bool: "bool_"}


def python_type_dtype(value: Any) -> Any:
    """The dtype PyTorch reads a Python number type as (float is float64, int is int64,
    bool is bool), or None for anything else.

    A stand-in for a dtype -- an object whose class sets ``__torch_dtype__``, as the calculator
    shorthand's bare ``double`` and ``long`` do -- is its dtype; one whose dtype gradcli lacks
    (the shorthand's ``half``) says so."""
    stand_in = getattr(type(value), "__torch_dtype__", None)
    if stand_in is not None:
        dtype = stand_in(value)
        if dtype is None:
            raise TorchNotImplementedError(f"gradcli does not support {value!r} yet")
        return dtype
    name = _PYTHON_TYPE_DTYPES.get(value) if isinstance(value, type) else None
    if name is None:
        return None
    return getattr(dtypes, name)


def _check(base: str, value: Any, numbers_as_tensors: bool) -> tuple[bool, Any]:
    if isinstance(value, np.generic) and value.dtype.kind in "biuf" and base != "any":
        value = value.item()  # a NumPy scalar is a Python number to PyTorch's argument parser
    if base == "Tensor":
        if isinstance(value, Tensor):
            return True, value
        if numbers_as_tensors and isinstance(value, (int, float)):
            return True, value
        return False, None
    if base == "Scalar":
        if isinstance(value, (int, float)):
            return True, value
        if isinstance(value, Tensor) and not value._batched and value.numel() == 1:
            return True, value.item()
        return False, None
    if base == "int":
        if _is_int_like(value):
            return True, int64(value)
        return False, None
    if base == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return True, float(value)
        if isinstance(value, Tensor) and not value._batched and value.numel() == 1:
            return True, float(value.item())
        return False, None
    if base == "bool":
        return (True, value) if isinstance(value, bool) else (False, None)
    if base == "str":
        return (True, value) if isinstance(value, str) else (False, None)
    if base in ("int[]", "int[1]"):
        if base == "int[1]" and _is_int_like(value):
            return True, int64(value)
        # PyTorch's is_int_or_symint_list looks at the first element only; the others fail when
        # the chosen overload unpacks them
        if _is_tuple_like(value) and (not value or _is_int_like(value[0])):
            for j, v in enumerate(value):
                if not _is_int_like(v):
                    raise NotAnInt(j, v)
            return True, int64_tuple(value)
        return False, None
    if base == "float[]":
        if _is_tuple_like(value) and all(isinstance(v, (int, float)) for v in value):
            return True, tuple(float(v) for v in value)
        return False, None
    if base == "Tensor[]":
        if _is_tuple_like(value):
            for i, v in enumerate(value):
                if not isinstance(v, Tensor):
                    raise TorchTypeError(
                        f"expected Tensor as element {i} in argument 0, but got {py_type_name(v)}")
            return True, list(value)
        return False, None
    if base == "dtype":
        if isinstance(value, DType):
            return True, value
        # PyTorch takes Python's number types as dtypes: float is float64, int is int64
        dtype = python_type_dtype(value)
        return (True, dtype) if dtype is not None else (False, None)
    if base == "device":
        if isinstance(value, Device):
            return True, value
        if isinstance(value, str):
            return True, parse_device(value)
        return False, None
    if base == "generator":
        return (True, value) if is_generator(value) else (False, None)
    # layout, memory_format, any: accepted as given (CPU-only, strided).
    return True, value


def is_generator(value: Any) -> bool:
    """Whether ``value`` is a ``torch.Generator`` (its class says so: dispatch imports no op module)."""
    return bool(getattr(type(value), "__torch_generator__", False))


_ABSENT = object()


def _fails_by_shape(sig: "Signature", args: Sequence, kwargs: dict) -> bool:
    """Whether ``sig`` refuses a call for its shape alone (too many positional arguments, a
    keyword it has no parameter or alias for), whatever the values: an overload after it that
    binds may then be remembered for that shape."""
    if len(args) > sum(1 for p in sig.params if not p.kwonly):
        return True
    names = {p.name for p in sig.params}
    aliases = {a for n in names for a in NUMPY_ALIASES.get(n, ())}
    return any(k not in names and k not in aliases for k in kwargs)


def _taken_as_given(bound: Any, given: Any) -> bool:
    """Whether binding kept the argument as it was: the same object, or a tuple of ints that
    an int[] parameter copied element for element."""
    if bound is given:
        return True
    return (type(given) is tuple and type(bound) is tuple and bound == given
            and all(type(v) is int for v in given) and all(type(v) is int for v in bound))


class ArgParser:
    """The overloads of one function, parsed the way PyTorch parses them."""

    __slots__ = ("name", "signatures", "numbers_as_tensors", "method", "_shapes")

    def __init__(self, signatures: Sequence[str | Signature], numbers_as_tensors: bool | str | tuple = False,
                 method: bool = False) -> None:
        self.signatures = [s if isinstance(s, Signature) else Signature(s) for s in signatures]
        self.name = self.signatures[0].name
        if self.name in PYTHON_LEVEL:
            for sig in self.signatures:
                sig.numpy_aliases = False
        self.numbers_as_tensors = numbers_as_tensors
        # Method form: the first parameter is the tensor itself, not counted in messages.
        self.method = method
        # Bindings by call shape (see parse): argument types -> (parameter names, the defaults)
        self._shapes: dict[tuple, tuple[int, tuple[str, ...], dict]] = {}

    def parse(self, args: Sequence, kwargs: dict) -> tuple[int, dict]:
        """Return (overload index, bound arguments).

        A call that the first overload binds with every argument taken as it is (a tensor for
        a Tensor, an int for an int or Scalar, a tuple of ints for an int[], each keyword by its
        own name) binds the same way for any arguments of the same types: those checks look
        only at the type.  So such a binding is kept by the call's shape -- the types of the
        arguments, the keywords' names and types -- and the next call of that shape only fills
        it in."""
        shape = tuple(map(type, args))
        if tuple in shape:  # a tuple's shape is its elements' types (an int[] of ints)
            shape = tuple(("tuple", *map(type, a)) if t is tuple else t for a, t in zip(args, shape))
        if kwargs:  # (a tuple by its elements' types here too: dim=(1,) and dim=(1.5,) differ)
            shape += tuple((k, ("tuple", *map(type, v)) if type(v) is tuple else type(v)) for k, v in kwargs.items())
        known = self._shapes.get(shape)
        # (an int outside int64 takes the full path, which refuses it where an int is expected)
        if known is not None and in_int64(args) and (not kwargs or in_int64(kwargs.values())):
            index, names, defaults = known
            bound = dict(defaults)
            for name, value in zip(names, args):
                bound[name] = value
            if kwargs:
                bound.update(kwargs)
            return index, bound
        index, bound = self._parse(args, kwargs)
        if all(_fails_by_shape(sig, args, kwargs) for sig in self.signatures[:index]):
            self._remember(shape, index, args, kwargs, bound)
        return index, bound

    def _remember(self, shape: tuple, index: int, args: Sequence, kwargs: dict, bound: dict) -> None:
        params = self.signatures[index].params
        if len(args) > len(params):
            return
        names = tuple(params[i].name for i in range(len(args)))
        if not all(_taken_as_given(bound.get(n, _ABSENT), a) for n, a in zip(names, args)):
            return  # an argument was converted or gathered (view(2, 3)): its value matters
        if any(k in names or bound.get(k, _ABSENT) is not v for k, v in kwargs.items()):
            return  # a keyword by a NumPy alias (axis=), or converted
        given = set(names) | set(kwargs)
        self._shapes[shape] = (index, names, {k: v for k, v in bound.items() if k not in given})

    def _parse(self, args: Sequence, kwargs: dict) -> tuple[int, dict]:
        offset = 1 if self.method else 0
        if self.method and (len(args) > 1 or kwargs) and all(len(sig.params) == 1 for sig in self.signatures):
            # Tensor methods without arguments are plain C methods (METH_NOARGS) in PyTorch.
            if kwargs:
                raise TorchTypeError(f"TensorBase.{self.name}() takes no keyword arguments")
            raise TorchTypeError(f"TensorBase.{self.name}() takes no arguments ({len(args) - 1} given)")
        if kwargs and self.name in PYTHON_LEVEL:
            known = {p.name for sig in self.signatures for p in sig.params}
            for key in kwargs:
                if key not in known:  # Python's own check, before any overload is tried
                    owner = "Tensor." if self.method else ""
                    raise TorchTypeError(f"{owner}{self.name}() got an unexpected keyword argument '{key}'")
        for i, sig in enumerate(self.signatures):
            try:
                return i, sig.bind(args, kwargs, self.numbers_as_tensors, offset)
            except _Mismatch:
                continue
        raise self._error(args, kwargs, offset)

    def _error(self, args: Sequence, kwargs: dict, offset: int) -> TorchTypeError:
        n = len(args) + len(kwargs)
        plausible = [s for s in self.signatures
                     if s.min_args <= n <= s.max_args and not s.hidden
                     or (s.varargs_param is not None and n >= 1 and not s.hidden)]
        if len(plausible) == 1 or len([s for s in self.signatures if not s.hidden]) == 1:
            sig = plausible[0] if plausible else self.signatures[0]
            try:
                sig.bind(args, kwargs, self.numbers_as_tensors, offset)
            except _Mismatch as m:
                return TorchTypeError(str(m))
        options = [sig.display(skip_self=self.method) for sig in self.signatures if not sig.hidden]
        return TorchTypeError(format_invalid_args(self.name, args[offset:], kwargs, options, py_type_name))


class LazyParser:
    """An ``ArgParser`` built on first use (parsing signatures at import costs start-up time)."""

    __slots__ = ("_signatures", "_numbers_as_tensors", "_method", "_parser", "name")

    def __init__(self, *signatures: str, numbers_as_tensors: bool | str | tuple = False, method: bool = False) -> None:
        self._signatures = signatures
        self._numbers_as_tensors = numbers_as_tensors
        self._method = method
        self._parser: ArgParser | None = None
        self.name = signatures[0].partition("(")[0]

    @property
    def parser(self) -> ArgParser:
        if self._parser is None:
            self._parser = ArgParser(self._signatures, self._numbers_as_tensors, method=self._method)
        return self._parser

    @property
    def signatures(self) -> list[Signature]:
        return self.parser.signatures

    def parse(self, args: Sequence, kwargs: dict) -> tuple[int, dict]:
        return self.parser.parse(args, kwargs)
