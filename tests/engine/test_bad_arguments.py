"""Every op of the op table, in its function and method forms, called with bad arguments.

The matrix: strings, None, ints outside int64, NaN and infinities, a float where an int goes,
a dtype, a list nested 66 deep, tuples of the wrong shape or element types, float and bool
tensors as indices, callables where a tensor goes.  Whatever an op makes of them, it must fail
(if it fails) with an error raised on purpose -- a Torch* error of gradcli.engine.errors, or the
TypeError Python raises for the call itself -- never an exception from deep inside the engine
or NumPy (which a front end reports as an internal error).  Sizes beyond the element limit are
refused by the limit (set low here), not allocated.
"""

from __future__ import annotations

import math
import signal
import types
from typing import Any, Callable, Iterator

import pytest

from gradcli.engine import api
from gradcli.engine.dispatch.limits import set_max_elements
from gradcli.engine.errors import TorchError
from gradcli.engine.tensor import Tensor

T = api.TORCH

# Callables that act on the process rather than on their arguments, or print: called with junk
# they would only reseed or reconfigure (their own checks are tested where they live).
SKIPPED = frozenset({"torch.set_default_device", "torch.autograd.function.once_differentiable"})


def _deep(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


def _bad_values() -> dict[str, Any]:
    x = T["ones"](2, 3)
    return {
        "str": "a", "None": None, "2**63": 2 ** 63, "-2**63-1": -2 ** 63 - 1, "2**64": 2 ** 64,
        "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "2.5": 2.5, "-1": -1, "True": True,
        "dtype": T["float"], "deep": _deep(66), "()": (), "(2,3,4,5)": (2, 3, 4, 5), "((1,2),)": ((1, 2),),
        "(1.5,)": (1.5,), "('a',)": ("a",), "(0,'a')": (0, "a"), "(2**63,)": (2 ** 63,),
        "float index": T["tensor"]([0.5]), "bool tensor": T["tensor"]([True, False]), "empty": T["zeros"](0),
        "0-dim": T["tensor"](1.5), "[x, x]": [x, x], "lambda": (lambda *a: 5), "len": len,
    }


def _callables() -> Iterator[tuple[str, Callable]]:
    for name, value in sorted(T.items()):
        if callable(value) and not isinstance(value, type):
            yield "torch." + name, value
    for path, members in sorted(api.SUBMODULES.items()):
        for name, value in sorted(members.items()):
            if callable(value) and not isinstance(value, type):
                yield f"torch.{path}.{name}", value
    for name in sorted(Tensor.__script_attrs__):
        value = Tensor.__dict__.get(name)
        if isinstance(value, types.FunctionType):
            yield "Tensor." + name, value


CALLABLES = [(name, fn) for name, fn in _callables() if name not in SKIPPED]


class _Slow(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _Slow()


def _calls(name: str, bad: dict[str, Any]) -> Iterator[tuple[tuple, dict]]:
    """The argument lists for one callable: each bad value alone, after a tensor, in each place of
    a few plausible calls, and by the keywords ops take."""
    x, xi = T["randn"](2, 3), T["tensor"]([[0, 1, 2], [1, 0, 1]])
    first = [x] if name.startswith("Tensor.") else []
    bases = [first, first + [x], first + [1], [x, 1], [x, 1, 1], [x, x, 1], [x, xi]]
    for base in bases:
        for i in range(len(base) + 1):
            for value in bad.values():
                args = list(base)
                if i < len(args):
                    args[i] = value
                else:
                    args.append(value)
                yield tuple(args), {}
    for keyword in ("dim", "dtype", "size", "out", "keepdim", "generator", "device", "requires_grad", "alpha",
                    "p", "min", "max", "value", "weight", "reduction", "step", "eps", "diagonal", "correction",
                    "num_classes", "padding_idx", "other", "decimals", "steps", "v", "create_graph"):
        for value in bad.values():
            yield (x,), {keyword: value}


def _internal(error: BaseException) -> bool:
    """An exception the engine did not raise on purpose (the front end's internal error)."""
    if isinstance(error, (TorchError, RecursionError)):
        return False
    trace = error.__traceback__
    frames = []
    while trace is not None:
        frames.append(trace.tb_frame.f_code.co_filename)
        trace = trace.tb_next
    # Python's own refusal of the call (a missing argument of a plain function) has no frame
    # but this test's
    return any(frame != __file__ for frame in frames)


@pytest.mark.parametrize("name, fn", CALLABLES, ids=[name for name, _ in CALLABLES])
def test_bad_arguments_fail_on_purpose(name: str, fn: Callable) -> None:
    api.reset_global_state(0)
    set_max_elements(10 ** 5)
    bad = _bad_values()
    found: list[str] = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for args, kwargs in _calls(name, bad):
            signal.setitimer(signal.ITIMER_REAL, 5)
            try:
                fn(*args, **kwargs)
            except _Slow:
                found.append(f"{name}{_show(args, kwargs, bad)}: took over 5 s")
            except BaseException as error:  # noqa: BLE001 - the point is to see every kind
                if _internal(error):
                    found.append(f"{name}{_show(args, kwargs, bad)}: {type(error).__name__}: {error}"[:300])
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)
        api.reset_global_state(0)
    assert not found, "\n".join(found[:20])


def _show(args: tuple, kwargs: dict, bad: dict[str, Any]) -> str:
    names = {id(v): k for k, v in bad.items()}

    def one(v: Any) -> str:
        if id(v) in names:
            return names[id(v)]
        return "x" if isinstance(v, Tensor) else repr(v)
    parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lt", "le", "eq", "ne", "and_",
             "or_", "xor", "lshift", "rshift", "getitem")


@pytest.mark.parametrize("operator_name", OPERATORS)
def test_operators_fail_on_purpose(operator_name: str) -> None:
    import operator
    op = getattr(operator, operator_name)
    x = T["randn"](2, 3)
    found = []
    for value in _bad_values().values():
        for args in ((x, value), (value, x)):
            try:
                op(*args)
            except BaseException as error:  # noqa: BLE001
                if _internal(error):
                    found.append(f"{operator_name}{_show(args, {}, _bad_values())}: {type(error).__name__}: {error}")
    assert not found, "\n".join(found[:20])


def test_setitem_fails_on_purpose() -> None:
    found = []
    bad = _bad_values()
    for value in bad.values():
        for index in (0, slice(None), "mask", value):
            x = T["randn"](2, 3)
            where = x > 0 if index == "mask" else index
            try:
                x[where] = value
            except BaseException as error:  # noqa: BLE001
                if _internal(error):
                    found.append(f"x[{index!r}] = {value!r}: {type(error).__name__}: {error}"[:300])
    assert not found, "\n".join(found[:20])
