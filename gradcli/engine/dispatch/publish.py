"""Publishing: where op records and hand-written callables become ``torch.X`` and ``Tensor.X``.

Modules that define ops only fill a ``Catalog`` (plain data, no effect at
import); ``gradcli.engine.install`` publishes every catalog once, in order.
``register`` is the one way anything reaches the tables below or the Tensor
class, so a method, its name in ``METHOD_NAMES`` and the sandbox's list of
what a script may reach on a tensor (``Tensor.__script_attrs__``) never drift
apart.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..tensor import Tensor
from .forms import function_form, inplace_form, method_form, operator_form
from .op import METHOD, Op, defop
from .parsed import parsed
from .signature import with_numpy_aliases
from .unbound import checking_self

# Hand-written forms that are Python code in PyTorch too, so take no NumPy aliases: (name, method?).
PYTHON_LEVEL_FORMS = frozenset({("norm", False), ("norm", True), ("split", True), ("unflatten", True)})

# torch.<name>
FUNCTIONS: dict[str, Callable] = {}
# torch.<namespace>.<name>: "nn.functional", "linalg".
NAMESPACES: dict[str, dict[str, Callable]] = {}
# Tensor methods published here (each also has a function form in the calculator shorthand).
METHOD_NAMES: set[str] = set()
# Every published op record, by name (tests break one on purpose to see the oracle fail).
OPS: dict[str, Op] = {}


def register(fn: Any, name: str | None = None, *, torch: bool = False, method: bool = False,
             namespaces: Sequence[str] = (), operators: Sequence[str] = (),
             sigs: str | Sequence[str] | None = None) -> Any:
    """Publish ``fn`` as ``torch.<name>``, ``Tensor.<name>`` (a property is an attribute), in
    ``torch.<namespace>`` and as Tensor operators; ``name`` defaults to ``fn.__name__``.

    With ``sigs`` (PyTorch's signatures of a C function), each form parses its arguments with
    them first (see ``parsed``).  (A hand-written ``(*args, **kwargs)`` function states its
    parameters with ``python_signature.signed``, where it is defined.)"""
    name = name or getattr(fn, "__name__", None)
    if sigs is not None:
        sigs = [sigs] if isinstance(sigs, str) else list(sigs)
        if torch or namespaces:
            register(parsed(fn, sigs), name, torch=torch, namespaces=namespaces)
        if method:
            register(parsed(fn, sigs, method=True), name, method=True)
        return fn
    if (torch or method) and "nn.functional" not in namespaces and (name, method) not in PYTHON_LEVEL_FORMS:
        fn = with_numpy_aliases(fn, name)  # (a hand-written function: its Python parameters)
    if torch:
        FUNCTIONS[name] = fn
    for namespace in namespaces:
        NAMESPACES.setdefault(namespace, {})[name] = fn
    if method:
        fn = checking_self(fn, name)
        setattr(Tensor, name, fn)
        if not isinstance(fn, property):
            METHOD_NAMES.add(name)
        Tensor.__script_attrs__ = Tensor.__script_attrs__ | {name}
    for operator in operators:
        setattr(Tensor, operator, fn)
    return fn


def publish(op: Op) -> None:
    """Every form of an op record: function, method, in-place, operators."""
    OPS[op.name] = op
    method = None
    if op.function:
        function = register(function_form(op), op.name, torch=True, namespaces=op.also_in)
        for alias in op.aliases:
            register(function, alias, torch=True)
    if op.method or METHOD in op.operators.values():
        method = method_form(op)
        if op.method:
            register(method, op.name, method=True)
    if op.inplace:
        register(inplace_form(op), op.name + "_", method=True)
    for operator, kind in op.operators.items():
        register(operator_form(op, kind, method, operator), operators=(operator,))


class Catalog:
    """What one module defines for publication, in order: op records and hand-written callables."""

    def __init__(self, jvp: Any = None, vmap: Any = None) -> None:
        self._entries: list[tuple[Any, str | None, dict]] = []
        self.jvp = jvp  # the family's forward-AD rule, for records that give none (Op.jvp)
        self.vmap = vmap  # the family's batch rule, likewise (Op.vmap)

    def defop(self, name: str, sigs: str | Sequence[str], forward: Callable[[dict], Any], **kw: Any) -> Op:
        """A new op record (see ``dispatch.op.Op`` for its fields), published by ``install``."""
        if self.jvp is not None:
            kw.setdefault("jvp", self.jvp)
        if self.vmap is not None:
            kw.setdefault("vmap", self.vmap)
        return self.add(defop(name, sigs, forward, **kw))

    def add(self, op: Op) -> Op:
        self._entries.append((op, None, {}))
        return op

    def register(self, fn: Any, name: str | None = None, **where: Any) -> Any:
        """``register(fn, name, **where)`` at install time (the same keywords)."""
        self._entries.append((fn, name, where))
        return fn

    def records(self) -> list[Op]:
        """Its op records, in order (the trace view asks which ops a family holds)."""
        return [item for item, _, _ in self._entries if isinstance(item, Op)]

    def install(self) -> None:
        for item, name, where in self._entries:
            if isinstance(item, Op):
                publish(item)
            else:
                register(item, name, **where)
