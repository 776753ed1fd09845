"""``torch.func.vmap``: a function run once over a batch, the batch carried through each op.

The inputs are wrapped as BatchedTensors of a new level (engine/batching), the function runs once,
and each output's batch is moved to its ``out_dims`` place (an output that did not depend on
the batch is expanded over it).  ``chunk_size`` runs the batch in pieces and concatenates them;
``randomness`` says what a random op inside does (engine/batching/randomness.py): "error" refuses
it (PyTorch's message), "same" draws once for the whole batch, "different" once per sample.
Argument checks and their messages are PyTorch's (torch/_functorch/vmap.py).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..batching import state
from ..batching.batched_tensor import BatchedTensor, at_front
from ..callbacks import call
from ..errors import TorchIndexError, TorchRuntimeError, TorchValueError
from ..tensor import Tensor
from .func import _flatten, _unflatten

RANDOMNESS = ("error", "different", "same")


def _name(func: Any) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else repr(func)


def _tree_repr(spec: Any, indent: int = 0) -> str:
    """A structure as PyTorch's TreeSpec.__repr__ writes it: ``*`` a leaf, children after the first on
    lines of their own."""
    if spec is None:
        return "*"
    kind, context, children = (dict, spec[1], spec[2]) if spec[0] is dict else (spec[0], None, spec[1])
    indent += 2
    parts = [_tree_repr(c, indent) for c in children]
    inner = parts[0] + "," + ",".join("\n" + " " * indent + p for p in parts[1:]) if len(parts) > 1 else \
        "".join(parts)
    return f"TreeSpec({kind.__name__}, {context}, [{inner}])"


def _dims_for(dims: Any, spec: Any) -> list | None:
    """``dims`` broadcast over the structure ``spec`` (PyTorch's _broadcast_to_and_flatten), or None."""
    if spec is None:
        return [dims] if not isinstance(dims, (tuple, list, dict)) else None
    if not isinstance(dims, (tuple, list, dict)):
        return [dims] * len(_unflatten_count(spec))
    kind = spec[0]
    if kind is dict:
        if not isinstance(dims, dict) or sorted(dims) != sorted(spec[1]):
            return None
        out: list = []
        for key, sub in zip(spec[1], spec[2]):
            found = _dims_for(dims[key], sub)
            if found is None:
                return None
            out += found
        return out
    if type(dims) is not kind or len(dims) != len(spec[1]):
        return None
    out = []
    for item, sub in zip(dims, spec[1]):
        found = _dims_for(item, sub)
        if found is None:
            return None
        out += found
    return out


def _unflatten_count(spec: Any) -> list:
    if spec is None:
        return [None]
    children = spec[2] if spec[0] is dict else spec[1]
    return [leaf for child in children for leaf in _unflatten_count(child)]


def _batch_inputs(func: Any, in_dims: Any, args: tuple) -> tuple[int, list, list, Any]:
    head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): "
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise TorchValueError(f"{head}expected `in_dims` to be int or a (potentially nested) tuple matching the "
                              f"structure of inputs, got: {_class_repr(in_dims)}.")
    if not args:
        raise TorchValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                              "you are trying to vmap over a function with no inputs. The latter is unsupported.")
    leaves, spec = _flatten(args)
    dims = _dims_for(in_dims, spec)
    if dims is None:
        raise TorchValueError(f"{head}in_dims is not compatible with the structure of `inputs`. in_dims has "
                              f"structure {_tree_repr(_flatten(in_dims)[1])} but inputs has structure "
                              f"{_tree_repr(spec)}.")
    for i, (arg, dim) in enumerate(zip(leaves, dims)):
        if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
            raise TorchValueError(f"{head}Got in_dim={dim} for an input but in_dim must be either an integer "
                                  "dimension or None.")
        if dim is not None and not isinstance(arg, Tensor):
            raise TorchValueError(f"{head}Got in_dim={dim} for an input but the input is of type "
                                  f"{_class_repr(arg)}. We cannot vmap over non-Tensor arguments, please use None "
                                  "as the respective in_dim")
        if dim is not None:
            n = arg.dim()
            if not -n <= dim < n:
                raise TorchValueError(f"{head}Got in_dim={dim} for some input, but that input is a Tensor of "
                                      f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
            dims[i] = dim % n
    return _batch_size(dims, leaves), dims, leaves, spec


def _batch_size(dims: list, leaves: list) -> int:
    sizes = [arg.size(dim) for dim, arg in zip(dims, leaves) if dim is not None]
    if not sizes:
        raise TorchValueError("vmap: Expected at least one Tensor to vmap over")
    if any(n != sizes[0] for n in sizes):
        raise TorchValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                              f"{sizes} for the mapped dimension")
    return sizes[0]


def _class_repr(value: Any) -> str:
    kind = type(value)
    if isinstance(value, Tensor):
        return "<class 'torch.Tensor'>"
    return f"<class '{kind.__name__}'>" if kind.__module__ == "builtins" else \
        f"<class '{kind.__module__}.{kind.__qualname__}'>"


def _check_out_dims(func: Any, out_dims: Any) -> None:
    leaves = [out_dims] if isinstance(out_dims, int) else _flatten(out_dims)[0]
    for leaf in leaves:
        if leaf is not None and (not isinstance(leaf, int) or isinstance(leaf, bool)):
            raise TorchValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
                                  "or a python collection of ints representing where in the outputs the vmapped "
                                  "dimension should appear.")


def _unbatched(func: Any, output: Any, level: int, size: int, out_dim: Any) -> Any:
    name = _name(func)
    if out_dim is None:
        if isinstance(output, BatchedTensor) and output._level == level:
            raise TorchValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return output
    if not isinstance(output, Tensor):
        raise TorchValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                              f"{_class_repr(output)}. Did you mean to set out_dims= to None for output?")
    rank = output.dim() + 1
    if not -rank <= out_dim < rank:
        raise TorchIndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got "
                                f"{out_dim})")
    out_dim %= rank
    physical, batched = at_front(output, level)
    if batched:
        return physical.movedim(0, out_dim) if out_dim else physical
    shape = list(output.shape)
    return output.unsqueeze(out_dim).expand(shape[:out_dim] + [size] + shape[out_dim:])


def _out_dims_for(func: Any, outputs: Any, out_dims: Any) -> list:
    """``out_dims`` as one entry per output leaf (a lone tensor takes an int, None or a 1-tuple)."""
    if isinstance(outputs, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        dims = None
    else:
        dims = _dims_for(out_dims, _flatten(outputs)[1])
    if dims is None:
        raise TorchValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                              f"with the structure of `outputs`. out_dims has structure "
                              f"{_tree_repr(_flatten(out_dims)[1])} but outputs has structure "
                              f"{_tree_repr(_flatten(outputs)[1])}.")
    return dims


def _unbatch_outputs(func: Any, outputs: Any, out_dims: Any, level: int, size: int) -> Any:
    leaves, spec = _flatten(outputs)
    dims = _out_dims_for(func, outputs, out_dims)
    return _unflatten([_unbatched(func, o, level, size, d) for o, d in zip(leaves, dims)], spec)


def _run_once(func: Any, size: int, dims: list, leaves: list, spec: Any, out_dims: Any, randomness: str,
              kwargs: dict) -> Any:
    level = state.depth + 1
    state.depth = level
    state.levels += 1
    state.vmap_numbers.append(state.levels)
    state.randomness.append(randomness)
    state.sizes.append(size)
    state.grad_depth_at.append(state.grad_depth)
    try:
        batched = [x if d is None else BatchedTensor.wrap(x, d, level) for x, d in zip(leaves, dims)]
        outputs = call(func, *_unflatten(batched, spec), **kwargs)
        return _unbatch_outputs(func, outputs, out_dims, level, size)
    finally:
        state.depth = level - 1
        state.levels -= 1
        state.vmap_numbers.pop()
        state.randomness.pop()
        state.sizes.pop()
        state.grad_depth_at.pop()


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Any = None) -> Callable:
    """``torch.func.vmap``: ``func`` over a batch of inputs as if run on each alone (``func`` is
    not checked here: calling a non-callable fails when the result is called, as in PyTorch)."""
    if randomness not in RANDOMNESS:
        raise TorchRuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                                f"{randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or isinstance(chunk_size, bool)
                                   or chunk_size <= 0):
        raise TorchValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _check_out_dims(func, out_dims)
        size, dims, leaves, spec = _batch_inputs(func, in_dims, args)
        if chunk_size is None:
            return _run_once(func, size, dims, leaves, spec, out_dims, randomness, kwargs)
        return _chunked(func, size, chunk_size, dims, leaves, spec, out_dims, randomness, kwargs)
    name = getattr(func, "__name__", None)
    if isinstance(name, str):   # (functools.wraps: a function's name, an object's none)
        wrapped.__name__ = name
        wrapped.__qualname__ = getattr(func, "__qualname__", name)
    return wrapped


def _chunked(func: Any, size: int, chunk: int, dims: list, leaves: list, spec: Any, out_dims: Any,
             randomness: str, kwargs: dict) -> Any:
    """The batch in pieces of ``chunk_size`` (the last one shorter), the outputs concatenated."""
    from ..ops.joining import CAT
    from ..random.generator import default_generator
    same_state = default_generator.get_state() if randomness == "same" else None
    results = []
    start = 0
    while start < size:
        if same_state is not None:   # (every chunk draws what the first one did, as PyTorch's chunks do)
            default_generator.set_state(same_state)
        stop = min(start + chunk, size)
        pieces = [x if d is None else x.narrow(d, start, stop - start) for x, d in zip(leaves, dims)]
        results.append(_run_once(func, stop - start, dims, pieces, spec, out_dims, randomness, kwargs))
        start = stop
    flat = [_flatten(r)[0] for r in results]
    out_leaves, out_spec = _flatten(results[0])
    joined = []
    for i, d in enumerate(_out_dims_for(func, results[0], out_dims)):
        parts = [f[i] for f in flat]
        joined.append(parts[0] if d is None else CAT(parts, d % out_leaves[i].dim()))
    return _unflatten(joined, out_spec)

