"""PyTorch's "received an invalid combination of arguments" message, as its C++ composes it.

A transcription of ``format_invalid_args`` (torch/csrc/utils/invalid_arguments.cpp): each
overload's printed signature is re-parsed the way that file parses it -- split at ", ", the
last word of each piece taken as its name (so a defaulted ``int dim = None`` is "named"
``None``, and the ``*`` counts as an argument) -- and an overload whose argument count fits
the call gets a note: the keywords it did not recognise, or the arguments with the types that
did not match marked ``!like this!``.  The keywords are walked in the order of the
``std::unordered_map`` that holds them (libstdc++'s: ``kwarg_order``), which is why
``got (int, keepdims=bool, axis=int)`` may list them otherwise than they were written.
"""

from __future__ import annotations

from typing import Any, Sequence

_MASK64 = (1 << 64) - 1
_MUL = (0xC6A4A793 << 32) + 0x5BD1E995  # libstdc++'s _Hash_bytes (64-bit Murmur)
_SEED = 0xC70F6907                       # std::hash<std::string>'s seed
_BUCKETS = 13  # an unordered_map's first bucket count (the next prime above 11); enough below 14 keys


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def string_hash(text: str) -> int:
    """``std::hash<std::string>`` of ``text``'s UTF-8 bytes (libstdc++ on a 64-bit platform)."""
    data = text.encode()
    n = len(data)
    h = (_SEED ^ (n * _MUL)) & _MASK64
    aligned = n & ~7
    for p in range(0, aligned, 8):
        k = int.from_bytes(data[p:p + 8], "little")
        k = (_shift_mix((k * _MUL) & _MASK64) * _MUL) & _MASK64
        h = ((h ^ k) * _MUL) & _MASK64
    if n & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * _MUL) & _MASK64
    h = (_shift_mix(h) * _MUL) & _MASK64
    return _shift_mix(h)


def kwarg_order(keys: Sequence[str]) -> list[str]:
    """The iteration order of a libstdc++ ``unordered_map`` after emplacing ``keys`` in order.

    A key whose bucket is empty goes to the front of the node list; one whose bucket has nodes
    goes right after that bucket's predecessor node, i.e. in front of the bucket's nodes.
    """
    order: list[str] = []
    first_of_bucket: dict[int, str] = {}
    buckets = _BUCKETS
    while len(set(keys)) > buckets:  # (the prime rehash policy past 13 keys: never met here)
        buckets = buckets * 2 + 1
    for key in keys:
        if key in order:
            continue
        bucket = string_hash(key) % buckets
        if bucket in first_of_bucket:
            order.insert(order.index(first_of_bucket[bucket]), key)
        else:
            order.insert(0, key)
        first_of_bucket[bucket] = key
    return order


class _Option:
    """One printed overload, parsed as invalid_arguments.cpp parses it."""

    def __init__(self, text: str) -> None:
        inner = text[1:-1]
        self.arguments: list[tuple[str, str]] = []  # (type name, "name")
        for piece in inner.split(", "):
            end = piece.rfind(" ")
            name = piece[end + 1:]
            type_end = end if end >= 0 else len(piece)
            if "..." in piece:
                type_end -= 4
            self.arguments.append((piece[:type_end] if end >= 0 else piece[:type_end], name))
        self.variadic = "..." in inner

    def count_matches(self, n_args: int, kwargs: dict) -> bool:
        expected, got = len(self.arguments), n_args + len(kwargs)
        return got == expected or (self.variadic and got > expected)

    def unmatched(self, kwargs: Sequence[str]) -> list[str]:
        start = max(len(self.arguments) - len(kwargs), 0)
        names = [name for _, name in self.arguments[start:]]
        return [key for key in kwargs if key not in names]


def _type_matches(type_name: str, value: Any, tp_name: Any) -> bool:
    accepted = {"float": ("float", "int", "long"), "int": ("int", "long")}.get(type_name, (type_name,))
    return tp_name(value) in accepted


def _describe(value: Any, tp_name: Any) -> str:
    if isinstance(value, (tuple, list)):
        items = ", ".join(tp_name(v) for v in value)
        if isinstance(value, tuple):
            return f"tuple of ({items}{',' if len(value) == 1 else ''})"
        return f"list of [{items}]"
    return tp_name(value)


def _formatted(option: _Option, args: Sequence, kwargs: dict, tp_name: Any) -> str:
    """``_formattedArgDesc``: each argument's type, ``!marked!`` where the overload wants another."""
    parts = []
    for i in range(len(args) + len(kwargs)):
        is_kwarg = i >= len(args)
        value = kwargs[option.arguments[i][1]] if is_kwarg else args[i]
        if i < len(option.arguments):
            ok = _type_matches(option.arguments[i][0], value, tp_name)
        else:
            ok = option.variadic and _type_matches(option.arguments[-1][0], value, tp_name)
        text = (option.arguments[i][1] + "=" if is_kwarg else "") + _describe(value, tp_name)
        parts.append(text if ok else f"!{text}!")
    text = ", ".join(parts)
    if not args and parts:
        text += ", "  # (the C++ trims the last ", " only when there were positional arguments)
    return f"({text})"


def _arg_desc(args: Sequence, kwargs: dict, order: list[str], tp_name: Any) -> str:
    parts = [tp_name(a) for a in args] + [f"{k}={tp_name(kwargs[k])}" for k in order]
    text = ", ".join(parts)
    if not args and parts:
        text += ", "
    return f"({text})"


def format_invalid_args(name: str, args: Sequence, kwargs: dict, options: Sequence[str], tp_name: Any) -> str:
    """The message for ``name(*args, **kwargs)`` (a method's ``args`` without self) and the printed
    non-hidden overloads ``options``; ``tp_name`` names a value's type as Python's C API does."""
    order = kwarg_order(list(kwargs))
    ordered = {k: kwargs[k] for k in order}
    message = f"{name}() received an invalid combination of arguments - "
    if len(options) == 1:
        option = _Option(options[0])
        unmatched = option.unmatched(order) if kwargs else []
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = (_formatted(option, args, ordered, tp_name) if option.count_matches(len(args), kwargs)
               else _arg_desc(args, kwargs, order, tp_name))
        return message + f"got {got}, but expected {options[0]}"
    lines = [message + f"got {_arg_desc(args, kwargs, order, tp_name)}, but expected one of:"]
    for text in options:
        option = _Option(text)
        lines.append(f" * {text}")
        if option.count_matches(len(args), kwargs):
            unmatched = option.unmatched(order) if kwargs else []
            if unmatched:
                lines.append("      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched))
            else:
                lines.append("      didn't match because some of the arguments have invalid types: "
                             + _formatted(option, args, ordered, tp_name))
    return "\n".join(lines) + "\n"
