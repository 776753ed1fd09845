"""Backward nodes: the ``grad_fn`` objects of the graph.

Every node class is named as PyTorch names it (``MulBackward0``,
``AccumulateGrad``, ...); ``node_class(name)`` makes one class per name on
first use, so ``type(y.grad_fn).__name__`` and the repr come out right.

An ``OpNode`` keeps what its formulas need ("saved values") and a backward
function from the op table.  Saved tensors remember their version at save
time: a later in-place change is caught when the node runs, and a node whose
saved values were freed by a backward without ``retain_graph`` refuses to run
again -- both with PyTorch's messages.
"""

from __future__ import annotations

import itertools
import math
import weakref
from typing import Any, Callable, Sequence

from .. import budget
from ..errors import TorchAttributeError, TorchRuntimeError
from ..shape_rules import type_string
from ..tensor import Tensor
from . import anomaly, observe
from .formulas import Formulas


_sequence = itertools.count()
_GRAPH_CHECK_EVERY = 0x1FFF   # every 8192 nodes: the process's memory against --max-memory

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.")

NODE_ATTRS = frozenset({"next_functions", "name", "register_hook", "register_prehook", "metadata"})


class RemovableHandle:
    """What ``register_hook`` returns: ``.remove()`` takes the hook away."""

    __script_attrs__ = frozenset({"remove", "id"})
    _ids = itertools.count()

    def __init__(self, hooks: dict) -> None:
        self.id = next(self._ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<torch.utils.hooks.RemovableHandle object at {id(self):#x}>"


RemovableHandle.__module__ = "torch.utils.hooks"


class Node:
    """Base of all backward nodes."""

    # Hooks and metadata are rare: they keep their class-level None until set, so making a
    # node stores two values (a graph has as many nodes as ops).
    __slots__ = ("next_functions", "_seq", "__dict__", "__weakref__")
    __script_attrs__ = NODE_ATTRS
    _pre_hooks: dict | None = None
    _hooks: dict | None = None
    _tensor_pre_hooks: dict | None = None  # hooks registered through a tensor (y.register_hook), by output
    _retain_hooks: dict | None = None
    _metadata: dict | None = None

    def __init__(self, next_functions: tuple = ()) -> None:
        self.next_functions = next_functions
        self._seq = seq = next(_sequence)
        if not seq & _GRAPH_CHECK_EVERY:   # (a graph's nodes are memory no tensor's size shows)
            budget.check_graph()
        if observe.watcher is not None:
            observe.watcher.node_made(self)
        if anomaly.enabled:
            anomaly.remember(self)

    # -- what PyTorch shows of a node ---------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = fn
        return handle

    def add_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def set_retain_hook(self, output_nr: int, fn: Callable) -> None:
        if self._retain_hooks is None:
            self._retain_hooks = {}
        self._retain_hooks[output_nr] = fn

    # -- what the engine calls ----------------------------------------------------------
    # Whether the engine may skip the node when no gradient reached it (PyTorch's generated
    # nodes return undefined gradients then; a custom Function's backward still runs).
    skips_without_grads = True

    @property
    def num_outputs(self) -> int:
        return 1

    def apply(self, grads: list, create_graph: bool) -> list:
        raise NotImplementedError

    def release(self) -> None:
        """Free saved values after a backward without ``retain_graph``."""

    def input_metadata(self, index: int) -> tuple | None:
        """(shape, dtype) of the input behind next_functions[index], for shaping its grad."""
        return None

    # -- what the views show ----------------------------------------------------------------
    # The node's rule in words, for the nodes that are not made from the op table (the op
    # nodes read theirs from their op's record).
    rule = ""

    def rule_lines(self) -> list[str]:
        """What the node does to the incoming gradient ``grad``, in words: one line per input
        of an op node (``d/dself = grad * other``), the node's own text for the others."""
        return [self.rule]


class SavedTensor:
    """A tensor saved for backward, with its version at the time it was saved."""

    __slots__ = ("tensor", "version", "was_leaf", "shape", "__dict__")
    # For the error message, "which is output 0 of Exp": fixed when a node saves
    # its own output; otherwise the tensor's history at the time of the error.
    output_of: str | None = None
    is_output = False
    # An in-place op's result that is a view: PyTorch names the view's node while it lives
    view_node: Callable[[], Node | None] | None = None

    def __init__(self, tensor: Tensor, output_of: str | None, is_output: bool = False) -> None:
        self.tensor = tensor
        self.version = tensor._vc.value
        # PyTorch saves a shallow copy: its message shows the shape from before a t_() or squeeze_()
        self.shape = tensor._data.shape
        self.was_leaf = tensor._grad_fn is None
        if output_of is not None:
            self.output_of = output_of
        if is_output:
            self.is_output = True

    def unpack(self) -> Tensor:
        t = self.tensor
        if not self.was_leaf and not self.is_output and t._grad_fn is None:
            raise TorchRuntimeError(
                "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not "
                "supported, please use out-of-place `.detach()` instead")
        if t._vc.value != self.version:
            node = self.view_node() if self.view_node is not None else None
            output_of = self.output_of if node is None else f"0 of {short_name(type(node).__name__)}"
            raise TorchRuntimeError(modified_message(t, output_of, self.version, self.shape))
        return t

    def unpack_for(self, node: "Node | None") -> Tensor:
        """The tensor as ``node``'s backward sees it (a plain saved tensor is the one saved)."""
        return self.unpack()


class SavedOutput(SavedTensor):
    """A node's own output, saved as PyTorch saves one: its data, version counter and output
    number, not the tensor object -- so a node and its output hold no reference cycle (a graph
    dropped without a backward is freed at once, not at the next full garbage collection) and
    unpacking gives a new tensor whose ``grad_fn`` is the node (``y.grad_fn._saved_result is y``
    is False there too)."""

    __slots__ = ("data", "dtype", "vc", "nr", "ref", "output_of", "fw")
    is_output = True
    was_leaf = False

    def __init__(self, tensor: Tensor, output_of: str | None, nr: int = 0) -> None:
        self.data = tensor._data
        self.dtype = tensor._dtype
        self.vc = tensor._vc
        self.nr = nr
        self.version = tensor._vc.value
        self.shape = tensor._data.shape
        self.output_of = output_of
        self.ref = weakref.ref(tensor)  # the views name it by the script's variable while it lives
        self.fw = None  # the output's tangent (forward AD), which the formulas see: set with it

    @property  # type: ignore[override]
    def tensor(self) -> Tensor:
        t = self.ref()
        return t if t is not None else self.unpack_for(None, checked=False)

    def unpack(self) -> Tensor:
        return self.unpack_for(None)

    def unpack_for(self, node: "Node | None", checked: bool = True) -> Tensor:
        """The output as the node's formulas (or ``_saved_result``) see it: ``grad_fn`` is ``node``."""
        t = Tensor._make(self.data, self.dtype)
        t._vc = self.vc
        if checked and self.vc.value != self.version:
            raise TorchRuntimeError(modified_message(t, self.output_of, self.version, self.shape))
        if self.dtype.is_floating_point:  # (an integer output, max's indices, has no node)
            t._grad_fn = node
            t._output_nr = self.nr
        if self.fw is not None:
            t._fw = self.fw
        return t


def move_retain_hook(t: Tensor, old_fn: Any, old_nr: int) -> None:
    """retain_grad() follows the tensor: after an in-place change its new node reports the grad."""
    if not t._retains_grad or old_fn is None or not old_fn._retain_hooks or t._grad_fn is None:
        return
    hook = old_fn._retain_hooks.pop(old_nr, None)
    if hook is not None:
        t._grad_fn.set_retain_hook(t._output_nr, hook)


def short_name(node_name: str) -> str:
    """How PyTorch's messages name a node: ``ExpBackward0`` is "Exp", ``ClampBackward1`` "Clamp1"."""
    i = node_name.rfind("Backward")
    number = node_name[i + len("Backward"):] if i > 0 else "x"
    if number == "":
        return node_name[:i]  # a custom Function's node: MyReLUBackward is "MyReLU"
    if not number.isdigit():
        return "torch::autograd::" + node_name  # the hand-written nodes: CopySlices, CopyBackwards, ...
    return node_name[:i] + ("" if number == "0" else number)


def modified_message(t: Tensor, output_of: str | None, expected: int, shape: tuple | None = None) -> str:
    shape = ", ".join(str(n) for n in (t.shape if shape is None else shape))
    where = f"[{type_string(t.dtype)} [{shape}]]"
    if output_of is None and t._grad_fn is not None:
        output_of = f"{t._output_nr} of {short_name(type(t._grad_fn).__name__)}"
    if output_of is not None:
        where += f", which is output {output_of},"  # the comma only closes this clause
    return ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: {where} is at version {t._vc.value}; expected version {expected} instead. "
            "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
            "with torch.autograd.set_detect_anomaly(True, check_nan=False).")


class Saved:
    """The unpacked saved values a formula reads as attributes (``s.self``, ``s.result``)."""

    def __init__(self, values: dict) -> None:
        self.__dict__ = values  # (the dict is made for this object alone)


class OpNode(Node):
    """A node made by an op of the op table."""

    __slots__ = ("_backward", "_saved", "_meta", "_tensor_keys")
    _freed = False
    _n_out = 1
    # grad_fn._saved_<name> of a non-tensor value: name -> (saved key, kind or a function of the
    # saved values); see expose_saved
    __saved_exposed__: dict[str, tuple[str, Any]] = {}

    def __init__(self, next_functions: tuple, backward: Callable, saved: dict,
                 meta: Sequence[tuple | None], n_out: int = 1,
                 tensor_keys: tuple[str, ...] | None = None) -> None:
        self._backward = backward
        self._saved = saved
        self._meta = meta
        # The keys of ``saved`` that can hold a tensor, in unpack order, when the maker knows
        # them (a node plan): then unpacking and releasing look at those alone.  None: every key.
        self._tensor_keys = tensor_keys
        if n_out != 1:
            self._n_out = n_out
        Node.__init__(self, next_functions)   # last: a watcher sees the node complete

    @property
    def num_outputs(self) -> int:
        return self._n_out

    def input_metadata(self, index: int) -> tuple | None:
        return self._meta[index]

    def _unpack(self) -> Saved:
        if self._freed:
            raise TorchRuntimeError(FREED_MESSAGE)
        saved = self._saved
        keys = self._tensor_keys
        if keys is not None:
            values = saved.copy()
            for key in keys:
                value = saved.get(key, _NOT_SAVED)
                if value is not _NOT_SAVED:
                    values[key] = _unpacked(self, value, False)
            return Saved(values)
        values = {}
        for key, sizes in unpack_order(tuple(saved)):
            values[key] = _unpacked(self, saved[key], sizes)
        return Saved(values)

    def apply(self, grads: list, create_graph: bool) -> list:
        out = self._backward(self._unpack(), grads)
        return out if type(out) is list else list(out)

    def rule_lines(self) -> list[str]:
        """``d/d<input> = <rule>`` for each input that requires grad, from the op's record; a
        list input (cat's tensors) as one ``d/dtensors[i]`` line."""
        backward = self._backward
        if not isinstance(backward, Formulas):
            return ["d/dself = grad (passed through unchanged)"]  # record_identity's node
        node_name = type(self).__name__
        lines: list[str] = []
        listed: set[str] = set()
        for (name, index), deriv in zip(backward.keys, backward.derivs):
            if deriv is None:
                continue  # an input that does not require grad
            if index is not None:
                if name in listed:
                    continue
                listed.add(name)
                name += "[i]"
            lines.append(f"d/d{name} = {deriv.rule_for(node_name)}")
        return lines

    def release(self) -> None:
        saved = self._saved
        keys = self._tensor_keys
        kept = None   # (a new dict: the saved one may be shared, as with a grad_fn's exposed values)
        for k in saved if keys is None else keys:
            v = saved.get(k)
            kind = type(v)
            if kind is SavedTensor or kind is SavedOutput or isinstance(v, SavedTensor) or (
                    (kind is list or kind is tuple) and not k.endswith("_sym_sizes") and _holds_tensor(v)):
                if kept is None:
                    kept = saved.copy()
                kept[k] = _RELEASED
        if kept is not None:
            self._freed = True
            self._saved = kept

    def saved_value(self, key: str) -> Any:
        """``grad_fn._saved_<key>``, as PyTorch exposes it: a tensor the node did not need to save
        (mul's self when only self requires grad) is None, one freed by backward an error."""
        exposed = type(self).__saved_exposed__.get(key)  # (the key it reads, its kind)
        if exposed is not None and callable(exposed[1]):
            if self._saved.get(exposed[0]) is _RELEASED:
                raise TorchRuntimeError(FREED_MESSAGE)
            return exposed[1](self._saved)   # (a value worked out from what was saved)
        value = self._saved.get(key if exposed is None else exposed[0], _NOT_SAVED)
        if value is _RELEASED:
            raise TorchRuntimeError(FREED_MESSAGE)
        if value is _NOT_SAVED:
            if f"_saved_{key}" in type(self).__script_attrs__:
                return None
            raise AttributeError(key)
        if exposed is not None and exposed[1] is not None:
            return _as_exposed(value, exposed[1])
        if isinstance(value, Tensor) and value._wrapped:
            return value.item()  # a Scalar overload's number (x.pow(2)._saved_exponent is 2)
        if isinstance(value, SavedTensor):
            return value.unpack_for(self)
        return _unpack(value)


def _as_exposed(value: Any, kind: str) -> Any:
    """A saved value as PyTorch's getter returns it: an int64 through PyLong_FromUnsignedLong
    (-1 reads as 2**64 - 1), an int[] as a tuple of those, a numel from the sizes."""
    if kind == "numel":
        return math.prod(value)
    if isinstance(value, (list, tuple)):
        return tuple(int(v) & _UINT64 for v in value)
    if value is None or isinstance(value, bool):
        return value
    return (int(value) & _UINT64,) if kind == "ints" else int(value) & _UINT64


_UINT64 = (1 << 64) - 1
_RELEASED = object()  # a saved tensor freed by backward
_NOT_SAVED = object()


def _unpacked(node: Node, value: Any, sizes: bool) -> Any:
    """One saved value as ``node``'s backward reads it (``sizes``: an input's sizes, never a tensor)."""
    kind = type(value)
    if kind is SavedTensor:
        return value.unpack()
    if kind is SavedOutput:
        return value.unpack_for(node)
    if (kind is list or kind is tuple) and not sizes and _holds_tensor(value):
        return _unpack(value)
    if isinstance(value, SavedTensor):   # (one a saved-tensor hook packed)
        return value.unpack_for(node)
    return value


def _unpack(value: Any) -> Any:
    if isinstance(value, SavedTensor):
        return value.unpack()
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return type(value)(_unpack(v) for v in value)
    return value


def _holds_tensor(value: Any) -> bool:
    """A saved tensor, or a list or tuple with one inside (index's indices: [(dim, tensor)])."""
    if isinstance(value, SavedTensor):
        return True
    if not isinstance(value, (list, tuple)):
        return False
    for v in value:
        if type(v) is not int and _holds_tensor(v):  # (sizes, the common case, are ints)
            return True
    return False


# The order OpNode._unpack reads saved values in (and saved_hooks packs them in), by the keys a node saved (a few per op).
_UNPACK_ORDER: dict[tuple, tuple] = {}


def unpack_order(keys: tuple) -> tuple[tuple[str, bool], ...]:
    """``keys`` in the order a node unpacks them -- inputs in name order, then outputs, so that
    of two modified saved tensors the one PyTorch reports is reported (mul's other before self,
    pow's self before its result) -- each with whether it is an input's sizes (which never hold
    a tensor, so nothing looks inside)."""
    order = _UNPACK_ORDER.get(keys)
    if order is None:
        ordered = sorted(keys, key=lambda k: (k.startswith("result"), k))
        order = _UNPACK_ORDER[keys] = tuple((k, k.endswith("_sym_sizes")) for k in ordered)
    return order


_classes: dict[str, type] = {}


def node_class(name: str, base: type = OpNode, saved_names: Sequence[str] = ()) -> type:
    """The class for nodes called ``name`` (one per name, made on first use)."""
    cls = _classes.get(name)
    if cls is None:
        attrs = NODE_ATTRS | _saved_attrs(saved_names)
        cls = type(name, (base,), {"__slots__": (), "__script_attrs__": attrs, "__module__": "builtins"})
        _classes[name] = cls
    elif saved_names:
        extra = _saved_attrs(saved_names) - cls.__script_attrs__
        if extra:
            cls.__script_attrs__ = cls.__script_attrs__ | extra
    return cls


def expose_saved(cls: type, exposed: dict[str, tuple[str, Any]]) -> None:
    """Make ``grad_fn._saved_<name>`` readable for each name: (the saved key it reads, its kind)."""
    if exposed:
        cls.__saved_exposed__ = {**cls.__saved_exposed__, **exposed}
        cls.__script_attrs__ = cls.__script_attrs__ | _saved_attrs(exposed)


def _saved_attrs(names: Any) -> set[str]:
    # (_raw_saved_<name> is there for a saved tensor only: _saved_getattr says which)
    return {f"_saved_{n}" for n in names} | {f"_raw_saved_{n}" for n in names}


def _saved_getattr(self: OpNode, attr: str) -> Any:
    if attr.startswith("_saved_"):
        return self.saved_value(attr[len("_saved_"):])
    if attr.startswith("_raw_saved_") and f"_saved_{attr[11:]}" in type(self).__script_attrs__:
        exposed = type(self).__saved_exposed__.get(attr[11:])
        key = attr[11:] if exposed is None else exposed[0]   # (max's indices are its result1)
        value = self._saved.get(key)
        if isinstance(value, SavedTensor) or value is _RELEASED:
            from .saved_hooks import RawSaved   # (rare: loaded on first use)
            return RawSaved(self, key)
        raise TorchAttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")


OpNode.__getattr__ = _saved_getattr  # only reached for names not found normally


class _AbstractNode(type):
    """``torch.autograd.graph.Node`` as a script sees it: the class every node is an instance of,
    which cannot be called (PyTorch's is an abstract base class)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Node)

    def __subclasscheck__(cls, sub: Any) -> bool:
        # (a front end may show a stand-in for a node's class, holding the real ones in `classes`)
        classes = getattr(sub, "classes", None) if not isinstance(sub, type) else (sub,)
        return bool(classes) and all(isinstance(c, type) and issubclass(c, Node) for c in classes)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        from ..errors import TorchTypeError
        raise TorchTypeError("Can't instantiate abstract class Node with abstract methods _input_metadata, "
                             "_register_hook_dict, _sequence_nr, metadata, name, next_functions, register_hook, "
                             "register_prehook")


GraphNode = _AbstractNode("Node", (), {"__module__": "torch.autograd.graph", "__script_attrs__": NODE_ATTRS})
