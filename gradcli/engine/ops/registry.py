"""TEMPORARY: the old registry's names over the new dispatch package, while the op families move."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..autograd.formulas import Deriv, d  # noqa: F401
from ..autograd.inplace import check_inplace_allowed, rebase_history  # noqa: F401
from ..autograd.node import move_retain_hook  # noqa: F401
from ..autograd.record import record_identity  # noqa: F401
from ..dispatch.forms import operator_form
from ..dispatch.memory import overlap_status, write_into  # noqa: F401
from ..dispatch.op import BINARY, INPLACE, METHOD, REFLECTED, Op, defop as _new_defop  # noqa: F401
from ..dispatch.publish import FUNCTIONS, METHOD_NAMES, NAMESPACES, OPS, publish
from ..dispatch.runner import run, run_inplace, run_inplace_view, write_out as _write_out  # noqa: F401

_NOT_POINTWISE = frozenset({"addmm", "copy", "cumprod", "cumsum", "fill", "index_add", "index_put", "masked_fill",
                            "scatter", "scatter_add", "tril", "triu", "zero"})


def defop(name: str, sigs: str | Sequence[str], forward: Callable[[dict], Any], **kw: Any) -> Op:
    dunders = kw.pop("dunders", ())
    if dunders:
        kw["operators"] = {d_: METHOD for d_ in dunders}
    if name in _NOT_POINTWISE:
        kw["inplace_broadcasts"] = False
    if name in ("zero", "masked_fill", "index_put"):
        kw["inplace_memory"] = "shared"
    if name == "fill":
        kw["inplace_memory"] = lambda b: "shared" if b["value"]._wrapped else "unique"
    if name == "copy":
        from ..dispatch.memory import same_memory
        kw["inplace_memory"] = lambda b: "untouched" if same_memory(b["self"], b["src"]) else "checked"
        kw["grad_only_into_float"] = True
    if name == "_to_copy":
        kw["integer_result_ok"] = True
    op = _new_defop(name, sigs, forward, **kw)
    publish(op)
    return op


def binary_dunder(op: Op, reflected: bool = False) -> Callable:
    return operator_form(op, REFLECTED if reflected else BINARY, None)


def inplace_dunder(op: Op) -> Callable:
    return operator_form(op, INPLACE, None)
