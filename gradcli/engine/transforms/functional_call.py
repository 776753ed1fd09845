"""``torch.func.functional_call`` and ``stack_module_state``: a module run with other tensors
in place of its parameters and buffers, and the parameters of many models stacked for vmap."""

from __future__ import annotations

from typing import Any

from ..callbacks import call
from ..errors import TorchAttributeError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..tensor import Tensor

def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the given tensors."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    elif isinstance(dicts, (tuple, list)) and all(isinstance(d, dict) for d in dicts):
        merged = {}
        for d in dicts:
            for key in d:
                if key in merged:
                    raise TorchValueError(f"{key} appeared in multiple dictionaries; behavior of functional call "
                                          "is ambiguous")
            merged.update(d)
    else:
        raise TorchValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                              f"but got {type(dicts)}")
    if not hasattr(module, "_parameters"):
        raise TorchAttributeError(f"'{type(module).__name__}' object has no attribute 'named_parameters'")
    for value in merged.values():
        if not isinstance(value, Tensor):
            raise TorchTypeError(f"{value!r} is not an instance of torch.Tensor")
    if strict:
        _check_keys(module, merged)
    args = () if args is None else (args if isinstance(args, tuple) else (args,))
    kwargs = kwargs or {}
    swapped = []
    try:
        for name, value in merged.items():
            owner, leaf = _owner(module, name)
            table = None
            if owner is not None:
                table = owner._parameters if leaf in owner._parameters else (
                    owner._buffers if leaf in owner._buffers else None)
            if table is None:
                continue   # (strict: refused above)
            swapped.append((table, leaf, table[leaf]))
            table[leaf] = value
        return call(module, *args, **kwargs)
    finally:
        for table, leaf, old in reversed(swapped):
            table[leaf] = old


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """torch.func.stack_module_state: the parameters and buffers of models of one class, each name's
    tensors stacked (new leaves, requiring grad when the models' do), for vmap over an ensemble."""
    from ..ops.joining import STACK
    models = list(models)
    if not models:
        raise TorchRuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({bool(m.training) for m in models}) != 1:
        raise TorchRuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise TorchRuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tables: list, name: str) -> Tensor:
        tensors = [table[name] for table in tables]
        flags = {t.requires_grad for t in tensors}
        if len(flags) != 1:
            raise TorchRuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        result = STACK(tensors)
        return result.detach().requires_grad_() if flags == {True} else result
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return ({k: stacked(params, k) for k in params[0]}, {k: stacked(buffers, k) for k in buffers[0]})


def _check_keys(module: Any, given: dict) -> None:
    """strict=True: every parameter and buffer given, nothing else (PyTorch's message)."""
    known = [n for n, _ in module.named_parameters()] + [n for n, _ in module.named_buffers()]
    unexpected = [k for k in given if k not in known]
    missing = sorted(k for k in known if k not in given)
    if unexpected or missing:
        lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
        if unexpected:
            lines.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
        if missing:
            lines.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
        raise TorchRuntimeError("\n\t".join(lines))


def _owner(module: Any, name: str) -> tuple[Any, str]:
    parts = name.split(".")
    owner = module
    for part in parts[:-1]:
        owner = getattr(owner, "_modules", {}).get(part)
        if owner is None:
            return None, parts[-1]
    return (owner if hasattr(owner, "_parameters") else None), parts[-1]
