"""Which tensors the graph view draws: the ones named on the command line, else those of the
script's last ``backward()``/``autograd.grad()`` call, else the last tensor it bound."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Sequence

from gradcli.engine.autograd import observe
from gradcli.engine.autograd.accumulate import AccumulateGrad
from gradcli.engine.tensor import Tensor
from gradcli.views.graph.model import Root, root_of

_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


USAGE_ERROR = 2


class CannotDraw(Exception):
    """A NAME the view cannot draw, or nothing to draw, with the reason in words (and the exit
    status it means: 2 for a NAME given wrong, 1 for a script with no graph)."""

    def __init__(self, message: str, status: int = USAGE_ERROR) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class BackwardCall:
    edges: list            # the root edges (node, output_nr), held while the view needs them
    metas: list            # (shape, dtype) of each root, from its seed gradient
    line: int | None
    kind: str              # "backward()" or "autograd.grad()"


class LastBackward(observe.Tracer):
    """A tracer that remembers the roots of the last backward pass (beside any other tracer, such as
    ``--trace-backward``'s: observe tells them all)."""

    def __init__(self) -> None:
        self.last: BackwardCall | None = None

    def install(self) -> "LastBackward":
        observe.add_tracer(self)
        return self

    def remove(self) -> None:
        observe.remove_tracer(self)

    def begin(self, roots, root_grads, inputs, accumulate) -> None:
        from gradcli.lang.runtime import innermost_span

        span = innermost_span()
        metas = [(tuple(g._data.shape), g._dtype) if isinstance(g, Tensor) else None for g in root_grads]
        self.last = BackwardCall(list(roots), metas, span.line if span is not None else None,
                                 "backward()" if accumulate else "autograd.grad()")


def pick_roots(view_run: Any, names: Sequence[str], recorder: LastBackward | None = None
               ) -> tuple[list[Root], list[str] | None]:
    """The roots to draw for a finished run (``script_run.ViewRun``) and a note for each heading:
    the NAMEs, else the tensors of the last backward()/autograd.grad() call (``recorder``, installed
    during the run), else the last tensor the script bound.  CannotDraw says why there are none."""
    session_globals, provenance = view_run.session.globals, view_run.provenance
    if names:
        return [resolve(name, session_globals) for name in names], None
    call = recorder.last if recorder is not None else None
    if call is not None:
        where = f" at line {call.line}" if call.line is not None else ""
        roots = backward_roots(call, provenance)
        return roots, [f"the last {call.kind}{where}"] * len(roots)
    root = last_bound(session_globals, provenance)
    if root is None:
        raise CannotDraw("nothing to draw: the script made no tensor that requires grad "
                         "(name one: gradcli graph FILE NAME)", status=1)
    return [root], ["the last tensor the script bound; it called no backward()"]


def backward_roots(call: BackwardCall, provenance: Any) -> list[Root]:
    roots = []
    for (node, nr), meta in zip(call.edges, call.metas):
        label = provenance.label(node, nr) if provenance is not None else ""
        if not label:   # a tensor the script never named: the expression that made it
            label = getattr(provenance.origin(node) if provenance is not None else None, "text", "")
        shape, dtype = meta if meta is not None else ((), None)
        variable = node.variable if isinstance(node, AccumulateGrad) else None
        roots.append(Root(label or f"the tensor {call.kind} started from", variable, (node, nr), shape, dtype))
    return roots


def last_bound(session_globals: dict, provenance: Any) -> Root | None:
    """The variable, among the script's final ones, whose assignment comes last in the script:
    one with a graph if any, else a leaf that requires grad."""
    best = None
    for name, value in session_globals.items():
        if not isinstance(value, Tensor) or not value.requires_grad:
            continue
        bindings = [b for b in provenance.names_of(value) if b.name == name] if provenance is not None else []
        where = max(((b.line, b.column) for b in bindings), default=(0, 0))
        rank = (value._grad_fn is not None, where)
        if best is None or rank > best[0]:
            best = (rank, name, value)
    if best is None:
        return None
    return root_of(best[1], best[2])


def resolve(name: str, session_globals: dict, owner: str = "the script") -> Root:
    """The Root for a NAME (a variable, or an attribute path such as ``model.fc.weight``)."""
    from gradcli.lang.safety import get_attribute

    if not _PATH.match(name):
        raise CannotDraw(f"'{name}' is not a variable name (give a name such as out, or model.fc.weight)")
    first, *rest = name.split(".")
    if first not in session_globals:
        close = difflib.get_close_matches(first, [n for n in session_globals if not n.startswith("_")], n=1)
        maybe = f"; did you mean '{close[0]}'?" if close else ""
        raise CannotDraw(f"{owner} has no variable '{first}'{maybe}")
    value = session_globals[first]
    for index, part in enumerate(rest):
        try:
            value = get_attribute(value, part)
        except Exception:
            so_far = ".".join([first, *rest[:index]])
            raise CannotDraw(f"'{so_far}' has no attribute '{part}'") from None
    if not isinstance(value, Tensor):
        raise CannotDraw(f"'{name}' is not a tensor (it is {_kind(value)})")
    return root_of(name, value)


def _kind(value: Any) -> str:
    name = type(value).__name__
    if value is None:
        return "None"
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def param_names(session_globals: dict) -> dict[int, str]:
    """id(parameter) -> ``model.fc.weight`` for the parameters of the script's modules."""
    from gradcli.engine.nn.modules.module import Module

    found: dict[int, str] = {}
    for name, value in session_globals.items():
        if isinstance(value, Module):
            try:
                for path, param in value.named_parameters():
                    found.setdefault(id(param), f"{name}.{path}")
            except Exception:   # a script's module in a state its own code would not accept
                continue
    return found
