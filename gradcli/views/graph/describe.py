"""What the graph view says about one node: the script's names and words for it, its output,
its leaf's ``.grad``, its saved tensors and their version counters, its hooks and its rule.

Read only for the nodes a view draws.  The renderers (terminal tree, DOT) lay these facts out;
the wording lives here so that both say the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcli.engine.autograd import node as engine_node
from gradcli.engine.autograd.node import SavedTensor
from gradcli.engine.tensor import Tensor
from gradcli.views.provenance import Operand

SMALL = 6            # tensors of up to this many elements are shown by value
# What OpNode.release leaves in place of a saved tensor (compared by identity, never unpacked)
_FREED = getattr(engine_node, "_RELEASED", None)


# -- values ------------------------------------------------------------------------------------
def number(value: Any) -> str:
    """A number as PyTorch prints a tensor's: ``4.5``, ``1024.``, ``0.1024``, ``1.2346e-05``."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if value == int(value) and abs(value) < 1e8:
        return f"{int(value)}."
    if 1e-4 <= abs(value) < 1e8:
        return f"{value:.4f}".rstrip("0")
    return f"{value:.4e}"


def shape_text(shape: tuple) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def dtype_text(dtype: Any) -> str:
    return getattr(dtype, "name", str(dtype))


def meta_text(meta: tuple | None) -> str:
    """``(2, 2) float32``."""
    if meta is None:
        return ""
    return f"{shape_text(meta[0])} {dtype_text(meta[1])}"


def values_text(t: Tensor, brief: bool = False) -> str:
    """A tensor's values when small (one number when all are equal), else its shape and a summary
    (``brief``: the mean alone, for a box in a picture)."""
    data = np.asarray(t._data)
    if data.size == 0:
        return f"empty {shape_text(data.shape)}"
    flat = data.reshape(-1)
    if data.size == 1:
        return number(flat[0])
    if data.dtype != object and np.all(flat == flat[0]):
        return f"{number(flat[0])} (all {data.size} elements)"
    if data.size <= SMALL:
        return _nested(data.tolist())
    if data.dtype.kind in "fiu":
        as_float = flat.astype(np.float64)
        if brief:
            return f"mean {number(as_float.mean())}"
        return (f"{shape_text(data.shape)}, mean {number(as_float.mean())}, "
                f"min {number(as_float.min())}, max {number(as_float.max())}")
    return shape_text(data.shape)


def _nested(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_nested(v) for v in value) + "]"
    return number(value)


# -- names ---------------------------------------------------------------------------------------
def operand_names(operand: Any, provenance: Any, param_names: dict) -> str:
    """What the script calls an op's argument as the op saw it: its names, or a constant's value."""
    if isinstance(operand, (list, tuple)):
        return "[" + ", ".join(operand_names(o, provenance, param_names) or "?" for o in operand) + "]"
    if not isinstance(operand, Operand):
        return ""
    source = operand.source()
    if operand.node is not None and source is not None:
        # its names, else the expression that made it
        return provenance.label(source, operand.output_nr) or getattr(provenance.origin(source), "text", "")
    if operand.leaf is not None and source is not None:
        return tensor_names(source, provenance, param_names)
    if operand.constant is not None:   # outside the graph: its name, else its value when small
        c = operand.constant
        return tensor_names(c, provenance, param_names) or (values_text(c) if c._data.size <= SMALL else "")
    return ""


def tensor_names(t: Tensor, provenance: Any, param_names: dict) -> str:
    """The names of a tensor outside any node's output (a leaf, a constant): a module's parameter
    by its path (``model.fc.weight``) and the script's own names; the loop variables that ran
    over it (``for p in model.parameters()``) only when it has no other name."""
    bindings = provenance.names_of(t) if provenance is not None else []
    names = [param_names[id(t)]] if id(t) in param_names else []
    names += [b.label() for b in bindings if not b.repeated]
    if not names:
        names = [b.label() for b in bindings]
    return ", ".join(dict.fromkeys(names))


# -- one node -------------------------------------------------------------------------------------
@dataclass
class SavedInfo:
    attr: str            # what the script reads: _saved_self, saved_tensors[0]
    source: str          # its names (y) or a constant's value
    meta: tuple | None   # (shape, dtype)
    state: str           # "unchanged", "modified", "freed", or "number" (a Scalar argument, kept as it is)
    version: int | None = None    # now
    saved_at: int | None = None   # when saved

    def text(self) -> str:
        what = self.attr + (f" = {self.source}" if self.source else "")
        if self.meta is not None:
            what += f"  {meta_text(self.meta)}"
        return f"{what}, {self.state_text()}" if self.state != "number" else what

    def state_text(self) -> str:
        if self.state == "number":
            return "a number"
        if self.state == "freed":
            return "freed by backward"
        if self.state == "modified":
            return (f"modified in place since it was saved: version {self.version} ≠ {self.saved_at}, "
                    "backward through here fails")
        return f"version {self.version}, unchanged"


@dataclass
class Details:
    names: list[str]               # labels of the tensors the script bound to its outputs
    text: str                      # the forward expression in the script's words
    line: int | None
    where: str                     # "line 15" or "line 5, iteration 3"
    output: str                    # "(2, 2) float32" (several outputs: numbered)
    leaf: str | None = None        # for AccumulateGrad: the leaf's names ("" if it has none)
    grad: str | None = None        # for a leaf: its .grad
    saved: list[SavedInfo] = field(default_factory=list)
    hooks: list[HookInfo] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def details(gnode: Any, provenance: Any, param_names: dict | None = None,
            repeated_spans: set | None = None) -> Details:
    """The facts the views show about ``gnode`` (a model.GNode)."""
    param_names = param_names or {}
    node, origin = gnode.node, gnode.origin
    text = origin.text if origin is not None else ""
    line = origin.line if origin is not None else None
    where = f"line {line}" if line is not None else ""
    if origin is not None and where and (origin.iteration > 1 or (repeated_spans and gnode.key in repeated_spans)):
        where += f", iteration {origin.iteration}"
    if gnode.leaf is not None:
        return _leaf_details(gnode, provenance, param_names)
    names = []
    if provenance is not None and node is not None:
        for nr in sorted(gnode.outputs) or [0]:
            for b in provenance.names_of_output(node, nr):
                # a loop's name: the iteration is said once, after the line
                same = origin is not None and b.line == origin.line and b.iteration == origin.iteration
                names.append(b.name if same else b.label())
                if same and b.repeated and "iteration" not in where:
                    where += f", iteration {origin.iteration}"
    out = Details(names, text, line, where, _outputs_text(gnode))
    if node is not None:
        out.saved = saved_of(node, origin, gnode, provenance, param_names)
        out.hooks = hooks_of(node)
        out.rules = rules_of(node)
        inner = getattr(node, "_fn", None) if type(node).__name__ == "CopySlices" else None
        if inner is not None:   # PyTorch's CopySlices runs the in-place op's own node on the view's part
            out.notes.append(f"an in-place {type(inner).__name__} on a view, written into its base")
    return out


def _outputs_text(gnode: Any) -> str:
    if len(gnode.outputs) <= 1:
        return meta_text(next(iter(gnode.outputs.values()), None))
    return ", ".join(f"output {nr}: {meta_text(m)}" for nr, m in sorted(gnode.outputs.items()))


def _leaf_details(gnode: Any, provenance: Any, param_names: dict) -> Details:
    leaf = gnode.leaf
    bindings = provenance.names_of(leaf) if provenance is not None else []
    names = tensor_names(leaf, provenance, param_names)
    # where the script made it: its first name's line (a module's parameter was made by the module)
    line = bindings[0].line if bindings and id(leaf) not in param_names else None
    grad = leaf._grad
    if not leaf._requires_grad:
        grad_text = "no longer requires grad"
    else:
        grad_text = "None" if grad is None else values_text(grad)
    out = Details([names] if names else [], "", line, f"line {line}" if line is not None else "",
                  _outputs_text(gnode), leaf=names, grad=grad_text)
    if gnode.node is not None:
        out.hooks = hooks_of(gnode.node)
    return out


def saved_of(node: Any, origin: Any, gnode: Any, provenance: Any, param_names: dict) -> list[SavedInfo]:
    saved = getattr(node, "_saved", None)
    args = (origin.args or {}) if origin is not None else {}
    result: list[SavedInfo] = []
    if isinstance(saved, dict):   # an op's node: its saved values by name
        # the name PyTorch gives a saved input where it differs from the key (convolution's _saved_input)
        shown = {key: name for name, (key, _) in (getattr(type(node), "__saved_exposed__", None) or {}).items()
                 if name != key and not key.startswith("result")}
        inputs = [name for name, _ in getattr(getattr(node, "_backward", None), "keys", None) or ()]
        order = {name: i for i, name in enumerate(dict.fromkeys(inputs))}
        for key in sorted(saved, key=lambda k: (k.startswith("result"), order.get(k, len(order)), k)):
            value = saved[key]
            if key.startswith("_") or not _holds_tensor(value):
                continue
            if key.startswith("result"):
                nr = int(key[6:] or 0)
                source = provenance.label(node, nr) or (origin.text if origin is not None else "") \
                    if provenance is not None else ""
                meta = gnode.outputs.get(nr)
            else:
                source = operand_names(args.get(key), provenance, param_names)
                operand = args.get(key)
                meta = None
                if isinstance(operand, Operand) and not (operand.constant is not None and operand.shape == ()):
                    meta = (operand.shape, operand.dtype)   # (a number needs no shape)
            constant = isinstance(args.get(key), Operand) and args[key].constant is not None
            result.extend(_saved_infos(f"_saved_{shown.get(key, key)}", value, source, meta, provenance,
                                       param_names, constant=constant))
    elif isinstance(saved, (list, tuple)):   # a custom Function's ctx.save_for_backward
        for i, value in enumerate(saved):
            if isinstance(value, SavedTensor):
                result.extend(_saved_infos(f"saved_tensors[{i}]", value, "", None, provenance, param_names))
    elif getattr(node, "_released", False) and hasattr(node, "_to_save"):
        result.append(SavedInfo("saved_tensors", "", None, "freed"))
    return result


def _saved_infos(attr: str, value: Any, source: str, meta: tuple | None, provenance: Any,
                 param_names: dict, constant: bool = False) -> list[SavedInfo]:
    if value is _FREED and _FREED is not None:
        return [SavedInfo(attr, source, meta, "freed")]
    if isinstance(value, SavedTensor):
        t = value.tensor
        now = t._vc.value
        if not source:
            source = tensor_names(t, provenance, param_names)
            if not source and t._data.size <= SMALL and not t._requires_grad and t._grad_fn is None:
                source = values_text(t)
        meta = None if constant and source and t._data.ndim == 0 else (tuple(value.shape), t._dtype)
        return [SavedInfo(attr, source, meta, "unchanged" if now == value.version else "modified",
                          now, value.version)]
    if isinstance(value, Tensor):   # a Scalar overload's number, kept as it is (never freed)
        return [SavedInfo(attr, values_text(value), None, "number")]
    if isinstance(value, (list, tuple)) and any(isinstance(v, SavedTensor) or v is _FREED for v in value):
        out = []
        for i, v in enumerate(value):
            out.extend(_saved_infos(f"{attr}[{i}]", v, "", None, provenance, param_names))
        return out
    return []


def _holds_tensor(value: Any) -> bool:
    if value is _FREED or isinstance(value, (SavedTensor, Tensor)):
        return True
    return isinstance(value, (list, tuple)) and any(_holds_tensor(v) for v in value)


def _hook_name(hook: Any) -> str:
    name = getattr(hook, "__name__", None) or type(hook).__name__
    return "a lambda" if name == "<lambda>" else name


@dataclass(frozen=True)
class HookInfo:
    short: str     # "tensor hook double", "retain_grad()": what a box in a picture has room for
    how: str       # how it was registered, or what it does

    def text(self) -> str:
        return f"{self.short} ({self.how})" if not self.how.startswith(":") else self.short + self.how


def hooks_of(node: Any) -> list[HookInfo]:
    """The hooks registered on a node."""
    hooks = []
    several = getattr(node, "num_outputs", 1) > 1
    for nr, registered in sorted((getattr(node, "_tensor_pre_hooks", None) or {}).items()):
        for hook in registered.values():
            on = f" on output {nr}" if several else ""
            hooks.append(HookInfo(f"tensor hook {_hook_name(hook)}{on}", "register_hook"))
    for hook in (getattr(node, "_pre_hooks", None) or {}).values():
        hooks.append(HookInfo(f"pre-hook {_hook_name(hook)}", "grad_fn.register_prehook"))
    for hook in (getattr(node, "_hooks", None) or {}).values():
        hooks.append(HookInfo(f"hook {_hook_name(hook)}", "grad_fn.register_hook"))
    for nr in sorted(getattr(node, "_retain_hooks", None) or {}):
        on = f" (output {nr})" if several else ""
        hooks.append(HookInfo(f"retain_grad(){on}", ": .grad kept for this non-leaf"))
    return hooks


def rules_of(node: Any) -> list[str]:
    """The node's derivative rule in words, as the engine words it (``Node.rule_lines``, where the
    engine has it; nothing otherwise)."""
    rule_lines = getattr(type(node), "rule_lines", None)   # (on the class: an op's node answers a
    if not callable(rule_lines):                            #  missing attribute slowly)
        return []
    try:
        lines = node.rule_lines()
    except Exception:   # a rule the engine cannot word is no reason to fail the drawing
        return []
    return [lines] if isinstance(lines, str) else [str(line) for line in lines or ()]
