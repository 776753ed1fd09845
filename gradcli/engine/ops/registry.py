"""The op table and the machinery that runs an op.

Each op is declared once with ``defop``: its PyTorch signatures, a forward
function over NumPy arrays, the ``grad_fn`` name PyTorch gives its node, and
one gradient formula per differentiable input (like a line of PyTorch's
``derivatives.yaml``).  From that one record come ``torch.<name>``,
``Tensor.<name>``, the in-place ``Tensor.<name>_`` and the operator dunders.

Gradient formulas are written with Tensor operations, so they are
themselves differentiable: with ``create_graph=True`` the backward pass
records a graph of its own (higher-order derivatives come for free).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.engine import gradient_edge
from ..autograd.node import SavedTensor, expose_saved, node_class
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor, wrap_scalar
from . import limits
from .signature import ArgParser
from ..shape_rules import list_str

Formula = Callable[[Any, Any], Any]


@dataclass
class Deriv:
    """The gradient formula for one input: the saved values it reads, and the formula."""
    needs: tuple[str, ...]
    fn: Formula


def d(*needs: str) -> Callable[[Formula], Deriv]:
    """``d("other")(lambda g, s: g * s.other)`` reads like a derivatives.yaml line."""
    return lambda fn: Deriv(tuple(needs), fn)


@dataclass
class Op:
    name: str
    sigs: list[str]
    forward: Callable[[dict], Any]
    node: str | Callable[[dict], str] | None = None
    inputs: tuple[str, ...] = ("self",)
    derivs: dict[str, Deriv] = field(default_factory=dict)
    function: bool = True
    method: bool = True
    inplace: bool = False
    numbers_as_tensors: bool | str = False  # "other": not for the first parameter
    # The outputs are views of the first input (share memory and version counter).
    view: bool = False
    # A named return type (torch.return_types.max) for tuple results.
    returns: Callable[..., Any] | None = None
    # Extra names: ("__add__",) binds the method form; ("__radd__", fn) binds fn.
    dunders: tuple = ()
    inplace_dunder: str | None = None
    # Where the function form lives (besides torch): e.g. "nn.functional".
    also_in: tuple[str, ...] = ()
    # Inputs that PyTorch takes as a Scalar overload when given a Python number:
    # then they are not graph inputs at all (``x ** 2`` has one next function).
    scalar_inputs: tuple[str, ...] = ()
    # The scalar inputs choose one overload together (clamp's min and max): the Scalar
    # overload only when each is a number or None; then the Nones are no graph inputs either.
    joint_scalars: bool = False
    # Only the inputs that require grad get an edge (PyTorch's NotImplemented nodes).
    required_edges_only: bool = False
    # The result is a fresh C-contiguous array whatever the input's layout.
    contiguous: bool = False
    # What an overload's node saves, when the op has several (max's dim overload keeps only the
    # indices); outputs named in any formula are otherwise saved whatever needs a gradient.
    saves: Callable[[dict], set] | None = None
    # The non-tensor values PyTorch's node exposes as grad_fn._saved_<name> (what its
    # derivatives.yaml line saves): bound arguments, "<input>_sym_sizes", "self_sym_numel", and
    # "indices" for a second output.  A dict names them per node when the overloads differ.
    exposes: tuple[str, ...] | dict[str, tuple[str, ...]] = ()
    # The checks of a structured kernel's meta function (dtypes of the arguments): they run
    # before an in-place op's memory-overlap checks, as PyTorch's meta runs before its
    # TensorIterator is built.  (Out of place, the forward makes them itself.)
    meta: Callable[[dict], None] | None = None
    fn_parser: ArgParser | None = None
    method_parser: ArgParser | None = None
    inplace_parser: ArgParser | None = None

    # The parsers are built on first use: parsing ~150 signatures at import would
    # cost start-up time for ops a script never calls.
    def parser(self, form: str) -> ArgParser:
        if form == "function":
            if self.fn_parser is None:
                self.fn_parser = ArgParser(self.sigs, self.numbers_as_tensors)
            return self.fn_parser
        if form == "method":
            if self.method_parser is None:
                self.method_parser = ArgParser([_strip_out(s) for s in self.sigs], self.numbers_as_tensors,
                                               method=True)
            return self.method_parser
        if self.inplace_parser is None:
            sigs = [_rename(_strip_out(s), self.name + "_") for s in self.sigs]
            self.inplace_parser = ArgParser(sigs, self.numbers_as_tensors, method=True)
        return self.inplace_parser


def _strip_out(sig: str) -> str:
    return sig.replace(", *, Tensor? out=None)", ")").replace(", Tensor? out=None", "")


def _rename(sig: str, name: str) -> str:
    return name + sig[sig.index("("):]


OPS: dict[str, Op] = {}
# torch.<name> for every op with a function form; other modules add to it.
FUNCTIONS: dict[str, Callable] = {}
NAMESPACES: dict[str, dict[str, Callable]] = {}
METHOD_NAMES: set[str] = set()


def defop(name: str, sigs: str | Sequence[str], forward: Callable[[dict], Any], **kw: Any) -> Op:
    op = Op(name, [sigs] if isinstance(sigs, str) else list(sigs), forward, **kw)
    OPS[name] = op
    _install(op)
    return op


# -- running an op ----------------------------------------------------------------------------

def _wrap_numbers(op: Op, bound: dict) -> None:
    for name in op.inputs:
        value = bound.get(name)
        if value is not None and not isinstance(value, (Tensor, list)):
            bound[name] = wrap_scalar(value)


def run(op: Op, bound: dict) -> Any:
    """Run ``op`` out of place on bound arguments; record the graph if needed."""
    _wrap_numbers(op, bound)
    out = bound.pop("out", None)
    records = grad_mode._enabled and op.node is not None and _any_requires_grad(op, bound)
    before = None
    if records and (not callable(op.node) or op.node(bound) is not None):
        # PyTorch collects the edges before the kernel (a stale view fails first); the node
        # takes them from here
        before = {id(t): (gradient_edge(t), t._vc.value) for t in _inputs_of(op, bound, with_self=True)}
    result = op.forward(bound)
    if limits.limited() and not op.view:
        for r in (result if isinstance(result, tuple) else (result,)):
            limits.check_count(np.size(r))
    if op.contiguous:  # (np.ascontiguousarray would make a 0-dim result 1-dim)
        result = tuple(_c_order(r) for r in result) if isinstance(result, tuple) else _c_order(result)
    if out is not None:
        return _write_out(op, bound, result, out)
    if isinstance(result, tuple):
        outputs = tuple(Tensor._make(a) for a in result)
    else:
        outputs = (Tensor._make(result),)
    if op.view:
        _mark_views(op, bound, outputs, isinstance(result, tuple))
    if records:
        _attach(op, bound, outputs, multi=isinstance(result, tuple), before=before)
    if isinstance(result, tuple):
        return op.returns(*outputs) if op.returns is not None else outputs
    return outputs[0]


def _requires(t: Any) -> bool:
    """requires_grad, also for the stand-in of an in-place op's self (a view made under
    no_grad requires grad without having an edge)."""
    return t._requires_grad or t._grad_fn is not None or (t._view_fn is not None and t._base.requires_grad)


def _c_order(a: Any) -> Any:
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _reads_self(op: Op, bound: dict) -> bool:
    """Whether the gradient formula of some input that requires grad reads self."""
    for name, dv in op.derivs.items():
        value = bound.get(name)
        values = value if isinstance(value, list) else [value]
        if "self" in dv.needs and any(isinstance(t, Tensor) and _requires(t) for t in values):
            return True
    return False


def _any_requires_grad(op: Op, bound: dict) -> bool:
    for name in op.inputs:
        t = bound.get(name)
        if t is None:
            continue
        for x in (t if isinstance(t, list) else (t,)):
            if x._requires_grad or x._grad_fn is not None:
                return True
            if x._view_fn is not None and x._base.requires_grad:
                return True  # a view made before its base required grad, or under no_grad
    return False


def _mark_views(op: Op, bound: dict, outputs: tuple[Tensor, ...], many: bool) -> None:
    from .views import mark_view
    params = {k: v for k, v in bound.items() if k != "self"}
    src = bound["self"]
    for i, out in enumerate(outputs):
        if many:
            replay = lambda b, i=i: run(op, {**params, "self": b})[i]  # noqa: E731
        else:
            replay = lambda b: run(op, {**params, "self": b})  # noqa: E731
        mark_view(src, out, replay, multi=many)


def _short(node_name: str) -> str:
    from ..autograd.node import short_name
    return short_name(node_name)


def _attach(op: Op, bound: dict, outputs: tuple[Tensor, ...], inplace_self: Any = None,
            multi: bool = False, before: dict | None = None) -> Any:
    """Create the backward node for ``outputs`` and link it into the graph.

    ``before`` holds the edges and versions of the inputs, collected before the kernel ran
    (as PyTorch does; an in-place write may change them)."""
    node_name = op.node(bound) if callable(op.node) else op.node
    if node_name is None:
        return None  # a form without a node (comparisons record only in place)
    # One entry per graph input; a list argument (cat's tensors) gives one per element.
    entries: list[tuple[str, int | None, Any]] = []
    scalar_overload = op.joint_scalars and all(
        bound.get(m) is None or bound[m]._wrapped for m in op.scalar_inputs)
    for n in op.inputs:
        if n not in bound:
            continue
        value = bound[n] if inplace_self is None or n != "self" else inplace_self[0]
        if isinstance(value, list):
            entries.extend((n, i, t) for i, t in enumerate(value))
        elif n in op.scalar_inputs and (scalar_overload if op.joint_scalars
                                        else value is not None and value._wrapped):
            continue  # a Scalar overload's number is no graph input
        else:
            entries.append((n, None, value))
    if op.required_edges_only:
        entries = [e for e in entries if e[2] is not None and _requires(e[2])]
    edges = []
    meta = []
    requires = []
    for n, _, t in entries:
        edge = None if t is None else (before[id(t)][0] if before and id(t) in before else gradient_edge(t))
        edges.append(edge if edge is not None else (None, 0))
        meta.append(None if t is None else (t._data.shape, t._dtype))
        requires.append(edge is not None)
    keys = tuple((n, i) for n, i, _ in entries)
    formulas = _formulas(op, keys, tuple(requires), multi)
    saved: dict[str, Any] = {}
    for key, value in bound.items():
        if not isinstance(value, Tensor) and key not in op.inputs:
            saved[key] = _save_nested(value)
    for (n, i, _), m in zip(entries, meta):
        if i is None:
            if m is not None:
                saved[n + "_sym_sizes"] = m[0]
                saved[n + "_dtype"] = m[1]
        else:
            saved.setdefault(n + "_sym_sizes", []).append(None if m is None else m[0])
    needs, declared = formulas.needs, formulas.declared
    if op.saves is not None:
        kept = op.saves(bound)
        needs, declared = needs & kept, declared & kept
    for key in needs:
        if key.startswith("result"):
            continue
        if inplace_self is not None and key == "self":
            # A copy of self from before the in-place change.
            saved["self"] = SavedTensor(inplace_self[1], None)
            continue
        if key not in bound:
            continue  # an input of another overload (max's `other`)
        t = bound[key]
        if isinstance(t, list):
            saved[key] = [_save(x, before) for x in t]
        elif key in op.scalar_inputs and isinstance(t, Tensor) and t._wrapped:
            saved[key] = t  # a Scalar overload keeps a number, which backward does not free
        else:
            saved[key] = _save(t, before)
    if multi:
        saved["_out_meta"] = [(o._data.shape, o._dtype) for o in outputs]
    cls = _node_class(op, node_name, declared)  # (declared includes needs)
    if op.exposes:
        _expose(op, node_name, cls, saved)
    node = cls(tuple(edges), formulas, saved, meta, n_out=max(len(outputs), 1))
    if node_name == "NotImplemented":
        node._seq = float("inf")  # PyTorch's error nodes run first, as AccumulateGrad (sequence_nr max)
    for i, o in enumerate(outputs):
        if o._dtype.is_floating_point:  # integer and bool outputs never carry a gradient
            o._grad_fn = node
            o._output_nr = i
        elif not multi and op.name != "_to_copy":
            # PyTorch's set_history: a differentiable op may not make an integer result
            # (sum(dtype=torch.long) of a tensor that requires grad); .long() may.
            raise TorchRuntimeError(f"Autograd not support dtype: {o._dtype.legacy_name}")
    for key in needs:
        # "result" is the (first) output; "result1" the second (max's indices), ...
        if key.startswith("result"):
            i = int(key[6:] or 0)
            if i < len(outputs):
                # an integer output (max's indices) has no node to name
                of = f"{i} of {_short(node_name)}" if outputs[i]._dtype.is_floating_point else None
                saved[key] = SavedTensor(outputs[i], of, is_output=True)
    return node


_CLASSES: dict[tuple, type] = {}


def _node_class(op: Op, node_name: str, needs: frozenset) -> type:
    key = (node_name, needs)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = node_class(node_name, saved_names=tuple(sorted(needs)))
    return cls


_EXPOSED: set[tuple[str, str]] = set()
# Exposed names that read another saved value: a count from the sizes, the indices output.
_EXPOSED_FROM = {"self_sym_numel": "self_sym_sizes", "indices": "result1"}


def _expose(op: Op, node_name: str, cls: type, saved: dict) -> None:
    """Declare the ``_saved_<name>`` attributes ``op.exposes`` lists for this node (once per node)."""
    if (op.name, node_name) in _EXPOSED:
        return
    _EXPOSED.add((op.name, node_name))
    names = op.exposes.get(node_name, ()) if isinstance(op.exposes, dict) else op.exposes
    exposed = {}
    for name in names:
        key = _EXPOSED_FROM.get(name, name)
        if key in saved or key.startswith("result"):
            exposed[name] = (key, "numel" if name.endswith("_numel") else _int_kind(op, name))
    expose_saved(cls, exposed)


def _int_kind(op: Op, name: str) -> str | None:
    """``int`` for a parameter PyTorch keeps as int64 (its getter shows -1 as 2**64 - 1), ``ints``
    for an int[] one (a tuple, even of one int given alone), else None (the value as it is)."""
    for sig in op.parser("function").signatures:
        for p in sig.params:
            if p.name == name:
                if p.base.startswith("int["):
                    return "ints"
                return "int" if p.base in ("int", "SymInt") else None
    return None


def _save_nested(value: Any) -> Any:
    """Tensors inside a list argument are saved tensors too (version-checked, freed after backward)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_save_nested(v) for v in value)
    return SavedTensor(value, None) if isinstance(value, Tensor) else value


def _save(t: Any, before: dict | None = None) -> Any:
    if not isinstance(t, Tensor):
        return t
    saved = SavedTensor(t, None)
    if before and id(t) in before:
        saved.version = before[id(t)][1]  # saved before an in-place write into it
    return saved


class Formulas:
    """The gradient formulas a node runs: one per graph input (None where none is needed).

    Shared by all nodes of an op with the same inputs requiring grad, so making
    a node costs no closure.
    """

    __slots__ = ("keys", "derivs", "multi", "needs", "declared")

    def __init__(self, op: Op, keys: tuple, requires: tuple, multi: bool) -> None:
        self.keys = keys
        self.derivs = [op.derivs.get(n) if r else None for (n, _), r in zip(keys, requires)]
        self.multi = multi
        # PyTorch saves an output always, and an input that every input's formula reads (gather's
        # self); one only some formulas read (mul's other), just when one of those will run.
        all_derivs = [op.derivs.get(n) for n, _ in keys]
        every = frozenset.intersection(*[frozenset(dv.needs) for dv in all_derivs]) \
            if all_derivs and all(dv is not None for dv in all_derivs) else frozenset()
        self.needs = frozenset(k for dv in self.derivs if dv is not None for k in dv.needs) | every | frozenset(
            k for dv in op.derivs.values() for k in dv.needs if k.startswith("result"))
        # What PyTorch's node declares (grad_fn._saved_<name>), saved or not (then it reads as None).
        self.declared = self.needs | frozenset(k for dv in all_derivs if dv is not None for k in dv.needs)

    def __call__(self, saved: Any, grads: list) -> list:
        if self.multi:
            g = [x if x is not None else _zeros(m) for x, m in zip(grads, saved._out_meta)]
        else:
            g = grads[0]
        out = []
        per_list: dict[str, Any] = {}
        for (name, index), deriv in zip(self.keys, self.derivs):
            if deriv is None:
                out.append(None)
            elif index is None:
                out.append(deriv.fn(g, saved))
            else:
                if name not in per_list:
                    per_list[name] = deriv.fn(g, saved)
                out.append(per_list[name][index])
        return out


_FORMULAS: dict[tuple, Formulas] = {}


def _formulas(op: Op, keys: tuple, requires: tuple, multi: bool) -> Formulas:
    cache_key = (op.name, keys, requires, multi)
    f = _FORMULAS.get(cache_key)
    if f is None:
        f = _FORMULAS[cache_key] = Formulas(op, keys, requires, multi)
    return f


def _zeros(meta: tuple) -> Tensor:
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype=dtype.np), dtype)


def _write_out(op: Op, bound: dict, result: Any, out: Any) -> Any:
    from .signature import py_type_name
    if not isinstance(out, Tensor):
        raise TorchRuntimeError(f"out must be a Tensor, not {py_type_name(out)}")
    if grad_mode._enabled and (_any_requires_grad(op, bound) or out.requires_grad):
        raise TorchRuntimeError(
            f"{op.name}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad.")
    array = np.asarray(result)
    src = dtypes.from_numpy(array.dtype)
    if not dtypes.can_cast(src, out._dtype):
        raise TorchRuntimeError(
            f"result type {src.legacy_name} can't be cast to the desired output type {out._dtype.legacy_name}")
    if out.shape != array.shape:
        out._data = np.empty(array.shape, dtype=out._dtype.np)  # PyTorch resizes out
    np.copyto(out._data, array, casting="unsafe")
    out._vc.value += 1
    return out


def run_inplace(op: Op, bound: dict) -> Tensor:
    """Run ``op`` writing into ``bound['self']``, with PyTorch's checks and graph rewiring."""
    _wrap_numbers(op, bound)
    bound["_inplace"] = True  # for ops whose node depends on the form
    target: Tensor = bound["self"]
    needs_grad = grad_mode._enabled and op.node is not None and _any_requires_grad(op, bound)
    if op.name == "copy" and not target._dtype.is_floating_point:
        needs_grad = False  # copy_ into an integer tensor records nothing
    original = None
    if needs_grad:
        check_inplace_allowed(target)  # before the kernel's own checks, as in PyTorch
        if _reads_self(op, bound):
            # PyTorch saves self.clone() before the kernel runs: an integer self that requires
            # grad fails here ("Autograd not support dtype") before any cast error
            original = target.clone()
    if op.meta is not None:
        op.meta(bound)
    same_copy = op.name == "copy" and _same_memory(target, bound["src"])  # x.copy_(x) returns at once
    # fill_ with a number may write memory that elements share; fill_ with a tensor may not
    tensor_fill = op.name == "fill" and not bound["value"]._wrapped
    if (op.name not in _MAY_REPEAT or tensor_fill) and not same_copy:  # memory first (index_put: its own way)
        if _repeats(target._data):
            raise TorchRuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.")
        if not tensor_fill:  # (fill_ copies a value that aliases self from a clone)
            _check_no_partial_overlap(op, bound, target)
    try:
        result = np.asarray(op.forward(bound))
    except (TorchNotImplementedError, TorchRuntimeError) as e:
        if isinstance(e, TorchRuntimeError) and str(e) != "ZeroDivisionError":
            raise
        # A kernel's error: PyTorch checks the broadcast shape against self, then finds the
        # common dtype (and that it can't be written back), all before the kernel
        inputs = _inputs_of(op, bound, with_self=True)
        if op.name not in _NOT_POINTWISE:
            from ..shape_rules import broadcast_all
            shape = broadcast_all([t.shape for t in inputs])
            if tuple(shape) != target.shape:
                raise TorchRuntimeError(
                    f"output with shape {list_str(target.shape)} doesn't match the broadcast shape "
                    f"{list_str(shape)}") from None
        common = dtypes.result_type(inputs)
        if not dtypes.can_cast(common, target._dtype):
            raise TorchRuntimeError(f"result type {common.legacy_name} can't be cast to the desired output type "
                                    f"{target._dtype.legacy_name}") from None
        raise
    src = dtypes.from_numpy(result.dtype)
    if result.shape != target._data.shape:  # then the shape, then the dtype
        raise TorchRuntimeError(
            f"output with shape {list_str(target.shape)} doesn't match the broadcast shape "
            f"{list_str(result.shape)}")
    if not dtypes.can_cast(src, target._dtype):
        names = (src.legacy_name, target._dtype.legacy_name)
        if op.joint_scalars and all(bound.get(m) is None or bound[m]._wrapped for m in op.scalar_inputs):
            names = (src.legacy_name, target._dtype.c_name)  # clamp_'s Scalar overload words it the C++ way
        raise TorchRuntimeError(f"result type {names[0]} can't be cast to the desired output type {names[1]}")
    before = None
    if needs_grad:
        self_edge_holder = _EdgeHolder(target)
        before = _before_write(op, bound, target)
    if same_copy:
        target._vc.value += 1  # x.copy_(x) writes nothing (even into an expanded x), but counts
    else:
        write_into(target, result, allow_overlap=op.name in _MAY_REPEAT)
    if needs_grad:
        node = _attach(op, bound, (), inplace_self=(self_edge_holder, original), before=before)
        if node is None:
            return target
        rebase_history(target, node)
        saves = {"result"} if op.saves is None else op.saves(bound)
        if "result" in {k for dv in op.derivs.values() for k in dv.needs} & saves:
            saved = node._saved["result"] = SavedTensor(target, f"0 of {_short(type(node).__name__)}", is_output=True)
            if target._base is not None:  # PyTorch keeps a weak pointer to the view's AsStridedBackward0
                saved.view_node = weakref.ref(target._grad_fn)
    return target


def run_inplace_view(op: Op, bound: dict) -> Tensor:
    """An in-place view op (``t_``, ``squeeze_``, ...): ``self`` takes the view's shape and strides.

    As PyTorch's inplace_view ops, it bumps the version and sets (not rebases) the history:
    on a view the new node follows the view's own node, the base's history is untouched."""
    target: Tensor = bound["self"]
    bound["_inplace"] = True  # for the node name (TBackward1) and the messages (t_())
    needs_grad = grad_mode._enabled and op.node is not None and _any_requires_grad(op, bound)
    if needs_grad:
        check_inplace_allowed(target)
        holder = _EdgeHolder(target)  # self as it was: the node's input shape and edge
        before = {id(holder): (gradient_edge(target), target._vc.value)}
    result = op.forward(bound)
    target._data = result
    target._vc.value += 1
    if target._view_fn is not None:
        # replaying the view from its base now ends with this op (for AsStridedBackward0 later)
        params = {k: v for k, v in bound.items() if k not in ("self", "_inplace")}
        parent = target._view_fn
        target._view_fn = lambda b: run(op, {**params, "self": parent(b)})
    if needs_grad:
        # (a retain_grad() hook stays with the old node: PyTorch's set_history does not move it)
        target._grad_fn = _attach(op, bound, (), inplace_self=(holder, None), before=before)
        target._output_nr = 0
        target._view_ver = target._vc.value  # else a view's next grad_fn read is an AsStridedBackward0
    return target


# In-place ops whose inputs do not broadcast together with self (TensorIterator's checks
# are not theirs).
_NOT_POINTWISE = frozenset({"addmm", "copy", "cumprod", "cumsum", "fill", "index_add", "index_put", "masked_fill",
                            "scatter", "scatter_add", "tril", "triu", "zero"})
# In-place ops that take their value as a number (value.item()): no overlap check, and
# like PyTorch's fill_ they may write into memory that several elements share.
_READS_VALUE = frozenset({"fill", "zero", "masked_fill"})
# In-place ops that may write expanded memory (PyTorch warns for index_put_ and masked_fill_).
_MAY_REPEAT = _READS_VALUE | {"index_put"}


def _same_memory(a: Tensor, b: Any) -> bool:
    if not isinstance(b, Tensor):
        return False
    x, y = a._data, b._data
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0] and x.shape == y.shape
            and x.strides == y.strides)


def _inputs_of(op: Op, bound: dict, with_self: bool = False) -> list:
    out = []
    for n in op.inputs:
        if n == "self" and not with_self:
            continue
        v = bound.get(n)
        out.extend(x for x in (v if isinstance(v, list) else [v]) if isinstance(x, Tensor))
    return out


def _before_write(op: Op, bound: dict, target: Tensor) -> dict:
    """The gradient edges and versions of the other inputs, before the write changes them."""
    return {id(t): (gradient_edge(t), t._vc.value) for t in _inputs_of(op, bound) if t._vc is target._vc}


def _repeats(a: np.ndarray) -> bool:
    return a.size > 0 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def _dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the strides are a permutation of contiguous ones."""
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1)
    expected = a.itemsize
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def overlap_status(a: np.ndarray, b: np.ndarray) -> str:
    """PyTorch's get_overlap_status: "full", "partial", "no", or "too hard" (not dense)."""
    if a.size == 0 or b.size == 0 or not np.may_share_memory(a, b):
        return "no"
    if not _dense(a) or not _dense(b):
        return "too hard"
    a0, b0 = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if (a0, a1) == (b0, b1):
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a0 < b1 and b0 < a1 else "no"


def _check_no_partial_overlap(op: Op, bound: dict, target: Tensor) -> None:
    a = target._data
    for t in _inputs_of(op, bound):
        if t is not target and overlap_status(a, t._data) == "partial":
            raise TorchRuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.")


class _EdgeHolder:
    """Stands in for ``self`` as it was before the in-place write (its graph edge)."""

    __slots__ = ("_grad_fn", "_output_nr", "_requires_grad", "_dtype", "shape", "_accumulator_of", "_data")
    _view_fn = None
    _wrapped = False

    def __init__(self, t: Tensor) -> None:
        self._data = t._data  # only its shape is read
        self._grad_fn = t._grad_fn
        self._output_nr = t._output_nr
        self._requires_grad = t._requires_grad
        self._dtype = t._dtype
        self.shape = t.shape
        self._accumulator_of = t

    def _grad_accumulator(self) -> Any:
        return self._accumulator_of._grad_accumulator()


def check_inplace_allowed(target: Tensor) -> None:
    """PyTorch's ``check_inplace``, for an in-place op that autograd will record."""
    base = target._base
    if target._view_fn is not None:
        from .views import check_view_rebase
        check_view_rebase(target, indirect=False)
        if base._grad_fn is None and target.requires_grad:  # (the view may require grad on its own)
            raise TorchRuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if target._grad_fn is None and target._requires_grad:
        raise TorchRuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def write_into(target: Tensor, array: np.ndarray, allow_overlap: bool = False) -> None:
    """Write ``array`` into ``target``'s memory and bump its version."""
    data = target._data
    if data.size == 0:
        target._vc.value += 1  # nothing to write, not even into an expanded tensor
        return
    if not data.flags.writeable and allow_overlap:
        alias = _writable_alias(data)
        if alias is not None:
            # only the elements that change are written, as the kernel writes only what it
            # indexes: writing all would let an untouched copy overwrite a shared element
            changed = ~((alias == array) | (np.isnan(alias) & np.isnan(array)) if alias.dtype.kind == "f"
                        else alias == array)
            alias[changed] = np.broadcast_to(array, alias.shape)[changed]
            target._vc.value += 1
            return
    if not data.flags.writeable:
        raise TorchRuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.")
    np.copyto(data, array, casting="unsafe")
    target._vc.value += 1


def _writable_alias(a: np.ndarray) -> np.ndarray | None:
    """A writable array on the same memory as the read-only ``a`` (an expanded tensor)."""
    root = a
    while True:  # (as_strided's result hangs on its array through a helper object)
        base = getattr(root, "base", None)
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            break
        root = base
    if not root.flags.writeable or not root.flags.c_contiguous:
        return None
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(a.shape, a.dtype, buffer=root, offset=offset, strides=a.strides)


def rebase_history(target: Tensor, node: Any) -> None:
    """Make ``node`` the new history of ``target`` after an in-place op."""
    if target._view_fn is not None:
        from .views import rebase_view
        rebase_view(target, node)
        return
    old = target._grad_fn, target._output_nr
    target._grad_fn = node
    target._output_nr = 0
    move_retain_hook(target, *old)


def move_retain_hook(t: Tensor, old_fn: Any, old_nr: int) -> None:
    """retain_grad() follows the tensor: after an in-place change its new node reports the grad."""
    if not t._retains_grad or old_fn is None or not old_fn._retain_hooks or t._grad_fn is None:
        return
    hook = old_fn._retain_hooks.pop(old_nr, None)
    if hook is not None:
        t._grad_fn.set_retain_hook(t._output_nr, hook)


def record_identity(t: Tensor, node_name: str, copy: bool = False) -> Tensor:
    """A tensor equal to ``t`` whose node passes the gradient straight through."""
    out = Tensor._make(t._data.copy() if copy else t._data, t._dtype)
    if grad_mode._enabled and t.requires_grad:
        edge = gradient_edge(t)
        cls = node_class(node_name)
        out._grad_fn = cls((edge,), lambda s, grads: [grads[0]], {}, [(t.shape, t._dtype)])
    return out


# -- the forms an op is called in --------------------------------------------------------------

def _install(op: Op) -> None:
    if op.function:
        fn = _function_form(op)
        FUNCTIONS[op.name] = fn
        for ns in op.also_in:
            NAMESPACES.setdefault(ns, {})[op.name] = fn
    if op.method:
        method = _method_form(op)
        setattr(Tensor, op.name, method)
        METHOD_NAMES.add(op.name)
        for dunder in op.dunders:
            if isinstance(dunder, tuple):
                setattr(Tensor, dunder[0], dunder[1])
            else:
                setattr(Tensor, dunder, method)
    if op.inplace:
        inplace = _inplace_form(op)
        setattr(Tensor, op.name + "_", inplace)
        METHOD_NAMES.add(op.name + "_")
        if op.inplace_dunder:
            setattr(Tensor, op.inplace_dunder, inplace)
    Tensor.__script_attrs__ = Tensor.__script_attrs__ | METHOD_NAMES


def _function_form(op: Op) -> Callable:
    def function(*args: Any, **kwargs: Any) -> Any:
        _, bound = op.parser("function").parse(args, kwargs)
        _rename_input(bound)
        return run(op, bound)
    function.__name__ = function.__qualname__ = op.name
    return function


def _method_form(op: Op) -> Callable:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        _, bound = op.parser("method").parse((self,) + args, kwargs)
        _rename_input(bound)
        return run(op, bound)
    method.__name__ = method.__qualname__ = op.name
    return method


def _inplace_form(op: Op) -> Callable:
    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        _, bound = op.parser("inplace").parse((self,) + args, kwargs)
        _rename_input(bound)
        return run_inplace_view(op, bound) if op.view else run_inplace(op, bound)
    inplace.__name__ = inplace.__qualname__ = op.name + "_"
    return inplace


def _rename_input(bound: dict) -> None:
    # Signatures say "input" as PyTorch's docs do; formulas and forwards say "self".
    if "input" in bound:
        bound["self"] = bound.pop("input")


def binary_dunder(op: Op, reflected: bool = False) -> Callable:
    """``x + y`` without argument parsing; returns NotImplemented for foreign types."""
    cache: list[dict] = []  # the op's keyword defaults, read on first use

    def dunder(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, int, float)):
            return NotImplemented
        if not cache:
            cache.append(_defaults(op))
        if reflected:
            return run(op, {"self": other if isinstance(other, Tensor) else wrap_scalar(other),
                            "other": self, **cache[0]})
        return run(op, {"self": self, "other": other, **cache[0]})
    return dunder


def inplace_dunder(op: Op) -> Callable:
    cache: list[dict] = []

    def dunder(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, int, float)):
            return NotImplemented
        if not cache:
            cache.append(_defaults(op))
        return run_inplace(op, {"self": self, "other": other, **cache[0]})
    return dunder


def _defaults(op: Op) -> dict:
    """The keyword defaults of an op's first signature (``alpha=1``)."""
    sig = op.parser("function").signatures[0]
    return {p.name: p.default for p in sig.params if p.name not in ("input", "self", "other", "out")}
