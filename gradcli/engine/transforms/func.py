"""``torch.func``: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian (functional_call and
stack_module_state are in functional_call.py).

Each transform is built on the engine's own autograd: the reverse ones on
``autograd.grad`` with ``create_graph=True`` (so one transform's result can be differentiated
by another: ``grad(grad(f))``), the forward ones on a dual level (``autograd/forward_ad``).  An
input is made differentiable through an alias of it (``view_as``), never a detached copy, so an
outer transform still sees how it was made; only the outermost transform hands back results
cut from every graph, as PyTorch's levels do.  ``jacrev``/``jacfwd`` are PyTorch's: a vjp whose
pullback is vmapped over the unit vectors of the outputs, a jvp vmapped over those of the
inputs (``f`` runs once, every row or column in one batched pass).  Each forward transform opens
a dual level of its own, nested in those of the transforms around it (``jacfwd(jacfwd(f))``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import budget
from ..autograd import forward_ad, grad_mode
from ..autograd.backward import grad as autograd_grad
from ..batching import state as vmap_state
from ..batching.gradients import batched_at_every_level, batched_grads
from ..callbacks import call
from ..errors import TorchAttributeError, TorchNotImplementedError, TorchRuntimeError, TorchTypeError, TorchValueError
from .. import tensor as tensor_module
from ..tensor import Tensor
from ..warnings import warn
from .checks import check_callable
from .dual_tensors import make_dual

_depth = 0   # how many transforms are running: only the outermost (0) detaches its results


class _Level:
    """A gradient transform running: its PyTorch level number, and the layer tensors made
    meanwhile print inside."""

    def __enter__(self) -> None:
        global _depth
        _depth += 1
        vmap_state.grad_depth += 1
        vmap_state.levels += 1
        self.layer = vmap_state.GradLayer(vmap_state.levels)
        tensor_module._grad_layers += (self.layer,)

    def __exit__(self, *exc: Any) -> None:
        global _depth
        _depth -= 1
        vmap_state.grad_depth -= 1
        vmap_state.levels -= 1
        self.layer.alive = False
        tensor_module._grad_layers = tensor_module._grad_layers[:-1]


# -- pytrees: a tensor, or tuples, lists and dicts of them --------------------------------------

def _flatten(tree: Any) -> tuple[list, Any]:
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = _flatten(item)
            leaves += sub
            specs.append(spec)
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key in tree:
            sub, spec = _flatten(tree[key])
            leaves += sub
            specs.append(spec)
        return leaves, (dict, list(tree), specs)
    return [tree], None


def _unflatten(leaves: list, spec: Any) -> Any:
    it = iter(leaves)

    def build(s: Any) -> Any:
        if s is None:
            return next(it)
        if s[0] is dict:
            return {k: build(sub) for k, sub in zip(s[1], s[2])}
        items = [build(sub) for sub in s[1]]
        return tuple(items) if s[0] is tuple else items
    return build(spec)


def _spec_repr(spec: Any) -> str:
    """A structure as PyTorch's TreeSpec prints it: ``*`` for a leaf."""
    if spec is None:
        return "*"
    if spec[0] is dict:
        return f"TreeSpec(dict, {spec[1]!r}, [{', '.join(_spec_repr(c) for c in spec[2])}])"
    return f"TreeSpec({spec[0].__name__}, None, [{', '.join(_spec_repr(c) for c in spec[1])}])"


def _map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = _flatten(tree)
    return _unflatten([fn(x) for x in leaves], spec)


def _type_repr(value: Any) -> str:
    kind = type(value)
    return f"<class '{kind.__module__}.{kind.__qualname__}'>" if kind.__module__ != "builtins" \
        else f"<class '{kind.__name__}'>"


# -- argnums ------------------------------------------------------------------------------------

def _wrap_argnum(argnum: Any, count: int) -> int:
    if not isinstance(argnum, int):
        raise TorchRuntimeError(f"argnum must be int, got: {_type_repr(argnum)}")
    if 0 <= argnum < count:
        return argnum
    if -count <= argnum < 0:
        return argnum + count
    raise TorchRuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")


def _argnums(argnums: Any, count: int) -> int | tuple:
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, count)
    if isinstance(argnums, tuple):
        wrapped = tuple(_wrap_argnum(a, count) for a in argnums)
        if not wrapped:
            raise TorchRuntimeError("argnums must be non-empty")
        if len(set(wrapped)) != len(wrapped):
            raise TorchRuntimeError(f"argnums elements must be unique, got {argnums}")
        return wrapped
    raise TorchRuntimeError(f"argnums must be int or Tuple[int, ...], got: {_type_repr(argnums)}")


def _replace(args: tuple, argnums: int | tuple, new: Any) -> tuple:
    """``args`` with the differentiated ones replaced by ``new``, and each other tensor by an alias
    made inside the running transform (PyTorch wraps every tensor argument at its level, which
    print shows)."""
    if isinstance(argnums, int):
        return tuple(new if i == argnums else _alias(a) for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else _alias(a) for i, a in enumerate(args))


def _alias(x: Any) -> Any:
    return _map(lambda t: t.view_as(t) if isinstance(t, Tensor) else t, x) \
        if isinstance(x, (Tensor, tuple, list, dict)) else x


def _picked(args: tuple, argnums: int | tuple) -> Any:
    return args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)


# -- making inputs differentiable, and the results plain again ----------------------------------

def _differentiable(x: Any) -> Any:
    if not isinstance(x, Tensor):
        raise TorchValueError(f"Thing passed to transform API must be Tensor, got {_type_repr(x)}")
    if not x._dtype.is_floating_point:
        raise TorchRuntimeError("only Tensors of floating point dtype can require gradients")
    if vmap_state.depth:   # (inside vmap: one gradient per sample, even of an input they share)
        x = batched_at_every_level(x)
    alias = x.view_as(x)
    if not alias.requires_grad:
        alias._set_requires_grad(True, "")   # (requires_grad_() is refused inside a transform)
    return alias


def _outer_graph(args: Any) -> bool:
    """Whether an input takes part in the script's own autograd graph (requires grad): then the
    results stay differentiable by it, as PyTorch's transforms keep regular autograd working."""
    return any(isinstance(x, Tensor) and x.requires_grad for x in _flatten(args)[0])


def _plain(tree: Any, keep: bool = False) -> Any:
    """Results as a transform gives them: out of the layers that have returned (PyTorch unwraps
    them); from the outermost one, cut from the graphs it made too."""
    if _depth or keep:
        return _map(_unwrapped, tree)
    return _map(lambda x: x.detach() if isinstance(x, Tensor) else x, tree)


def _unwrapped(x: Any) -> Any:
    inner = x
    while isinstance(inner, Tensor) and inner._batched:   # (inside vmap: the values it holds)
        inner = inner._value
    if isinstance(inner, Tensor) and inner._layers:
        inner._layers = tuple(layer for layer in inner._layers if layer.alive)
    return x


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise TorchRuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    for leaf in _flatten(output[1])[0]:   # (PyTorch unwraps aux from its levels: tensors only)
        if not isinstance(leaf, Tensor):
            raise TorchRuntimeError(f"Expected tensors, got unsupported type {_type_repr(leaf)}")
    return output


def _grads(outputs: list, inputs: list, cotangents: list | None = None) -> list:
    """d(outputs)/d(inputs) . cotangents, zeros for an input the outputs do not depend on."""
    needed = [o for o in outputs if o.requires_grad]
    seeds = None
    if cotangents is not None:
        seeds = [c for o, c in zip(outputs, cotangents) if o.requires_grad]
    if any(t is not None and t._batched for t in outputs + inputs + (seeds or [])):
        return batched_grads(needed, inputs, seeds, autograd_grad)
    found = autograd_grad(needed, inputs, seeds, retain_graph=True, create_graph=True, allow_unused=True) \
        if needed else [None] * len(inputs)
    return [g if g is not None else _zeros_as(x) for g, x in zip(found, inputs)]


def _zeros_as(x: Tensor) -> Tensor:
    """Zeros of ``x``'s shape and dtype (inside vmap: a batch of them, as ``x`` is batched)."""
    if x._batched:
        from ..batching.gradients import physical, wrapped_as
        return wrapped_as(_zeros_as(physical(x)), x)
    return Tensor._make(np.zeros_like(x._data), x._dtype)


# -- grad, grad_and_value, vjp --------------------------------------------------------------------

def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    check_callable(func)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        api = "grad_and_value(f)(*args)"
        picked = _argnums(argnums, len(args))
        with _Level(), grad_mode.enable_grad():
            diff = _map(_differentiable, _picked(args, picked))
            output, aux = _split_aux(call(func, *_replace(args, picked, diff), **kwargs), has_aux, api)
            if not isinstance(output, Tensor):
                raise TorchRuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {_type_repr(output)}")
            if output.dim() != 0:
                raise TorchRuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                                        f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                        "instead?")
            leaves, spec = _flatten(diff)
            grads = _unflatten(_grads([output], leaves), spec)
        keep = _outer_graph((args, kwargs))
        if has_aux:
            return _plain(grads, keep), (_plain(output, keep), _plain(aux, keep))
        return _plain(grads, keep), _plain(output, keep)
    return wrapper


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def _tensor_outputs(output: Any, api: str) -> list:
    leaves, _ = _flatten(output)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise TorchRuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                                    f"{_type_repr(leaf)}")
    if not leaves or leaves == [()]:
        raise TorchRuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = [])")
    return leaves


def _check_float_outputs(outputs: list) -> None:
    for out in outputs:
        if not out._dtype.is_floating_point:
            raise TorchRuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                    f"Tensor with dtype torch.{out._dtype.name}")


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    check_callable(func)
    api = "vjp(f, *primals)"
    with _Level(), grad_mode.enable_grad():
        diff = _map(_differentiable, primals)
        output, aux = _split_aux(call(func, *diff), has_aux, api)
        outputs = _tensor_outputs(output, api)
        _check_float_outputs(outputs)
    leaves, spec = _flatten(diff)
    out_spec = _flatten(output)[1]
    outer = _depth

    def vjp_fn(*cotangents: Any) -> tuple:
        given = _flatten(cotangents[0] if len(cotangents) == 1 and out_spec is None else cotangents)[0]
        for c in given:
            if not isinstance(c, Tensor) and c is not None:
                raise TorchTypeError(f"gradients can be either Tensors or None, but got {type(c).__name__}")
        if len(given) != len(outputs):
            raise TorchRuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                                    f"outputs to the function. cotangents: {len(given)} tensors, primal output: "
                                    f"{len(outputs)} tensors")
        for c, o in zip(given, outputs):
            if not isinstance(c, Tensor) or c.shape != o.shape:
                raise TorchRuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                                        f"{getattr(c, 'shape', None)} and output[0] has a shape of {o.shape}.")
        global _depth
        saved, _depth = _depth, outer
        try:
            with grad_mode.enable_grad():
                grads = _unflatten(_grads(outputs, leaves, given), spec)
        finally:
            _depth = saved
        return _plain(grads, keep) if not outer else grads

    keep = _outer_graph(primals)
    result = (_plain(output, keep), vjp_fn)
    return result + (_plain(aux, keep),) if has_aux else result


# -- jvp ------------------------------------------------------------------------------------------

def _open_level() -> None:
    """A dual level of the transform's own, nested in those of the forward transforms around it
    (inside a script's own dual_level() it is refused, as PyTorch refuses it)."""
    if forward_ad._script_level:
        raise TorchRuntimeError("Nested forward mode AD is not supported at the moment")
    forward_ad.push_level()


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> tuple:
    check_callable(func)
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise TorchRuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call "
                                "f(*primals).")
    p_leaves, spec = _flatten(primals)
    t_leaves, t_spec = _flatten(tangents)
    if t_spec != spec:
        raise TorchRuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For "
                                f"example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                                f"primals with structure {_spec_repr(spec)} and tangents with structure "
                                f"{_spec_repr(t_spec)}")
    with _Level():
        _open_level()
        try:
            duals = [make_dual(p, t) for p, t in zip(p_leaves, t_leaves)]
            output, aux = _split_aux(call(func, *_unflatten(duals, spec)), has_aux, api)
            outputs = _tensor_outputs(output, api)
            primal_out = [forward_ad.unpack_dual(o).primal for o in outputs]
            tangent_out = [_tangent_or_zeros(o) for o in outputs]
        finally:
            forward_ad.pop_level()
        if has_aux:
            aux = _map(_aux_primal, aux)
    out_spec = _flatten(output)[1]
    keep = _outer_graph(primals)
    result = (_plain(_unflatten(primal_out, out_spec), keep), _plain(_unflatten(tangent_out, out_spec), keep))
    return result + (_plain(aux, keep),) if has_aux else result


def _aux_primal(x: Any) -> Any:
    if not isinstance(x, Tensor):
        raise TorchRuntimeError(f"Expected tensors, got unsupported type {_type_repr(x)}")
    return forward_ad.unpack_dual(x).primal


def _tangent_or_zeros(t: Tensor) -> Tensor:
    if t._batched:   # (inside vmap)
        found = forward_ad.unpack_dual(t).tangent
        return found if found is not None else _zeros_as(t)
    found = forward_ad.tangent_of(t)
    return found if found is not None else Tensor._make(np.zeros_like(t._data), t._dtype)


# -- Jacobians ------------------------------------------------------------------------------------

def _standard_basis(tensors: list) -> list:
    """For each tensor, its part of the identity over all their elements: (total, *shape)."""
    total = sum(t.numel() for t in tensors)
    # (total x total elements: for jacfwd as large as the Jacobian of a same-sized output)
    budget.check_bytes(total * total * max(t._dtype.itemsize for t in tensors),
                       f"a Jacobian of {total * total} elements")
    basis, start = [], 0
    for t in tensors:
        n = t.numel()
        part = np.zeros((total, n), dtype=t._dtype.np)
        part[np.arange(start, start + n), np.arange(n)] = 1
        basis.append(Tensor._make(part.reshape((total,) + tuple(t.shape)), t._dtype))
        start += n
    return basis


def jacrev(func: Callable, argnums: Any = 0, *, has_aux: bool = False, chunk_size: Any = None,
           _preallocate_and_copy: bool = False) -> Callable:
    check_callable(func)
    _check_chunk_size(chunk_size)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        picked = _argnums(argnums, len(args))
        with _Level(), grad_mode.enable_grad():
            diff = _map(_differentiable, _picked(args, picked))
            output, aux = _split_aux(call(func, *_replace(args, picked, diff), **kwargs), has_aux,
                                     "vjp(f, *primals)")   # (PyTorch's jacrev is its vjp underneath)
            outputs = _tensor_outputs(output, "vjp(f, *primals)")
            _check_float_outputs(outputs)
            leaves, spec = _flatten(diff)
            _check_jacobian_size(outputs, leaves)

            def pullback(*cotangents: Tensor) -> list:
                return _grads(outputs, leaves, list(cotangents))
            basis = _standard_basis(outputs)
            if not basis[0].shape[0]:   # (no output element: no row)
                per_input = [_zeros_as(x).reshape(-1)[:0].reshape([0] + list(x.shape)) for x in leaves]
            elif chunk_size == 1:   # (as PyTorch: a loop over the rows, no vmap)
                per_input = _rows_one_by_one(pullback, basis, len(leaves))
            else:
                per_input = _batched_rows(pullback, basis, len(leaves), chunk_size)
            # per input: (every output's elements, *the input's shape), split by output
            blocks = [[block.reshape(list(out.shape) + list(x.shape)) for block, out in
                       zip(rows.split([o.numel() for o in outputs], 0), outputs)] for rows, x in zip(per_input, leaves)]
            jac = _unflatten([_unflatten([blocks[k][j] for k in range(len(leaves))], spec)
                              for j in range(len(outputs))], _flatten(output)[1])
        return _results(jac, aux, has_aux, _outer_graph((args, kwargs)))
    return wrapper


def _batched_rows(pullback: Callable, basis: list, count: int, chunk_size: Any) -> list:
    """Every row of the Jacobians in one batched backward pass; where gradcli cannot batch a
    gradient formula (pooling's, cross_entropy's, ...), one backward pass per row instead (the
    same values, as PyTorch's chunk_size=1)."""
    from ..batching.batched_tensor import NO_STORAGE
    from .vmap import vmap
    try:
        return vmap(pullback, chunk_size=chunk_size)(*basis)
    except (TorchNotImplementedError, TorchRuntimeError) as e:
        if not (str(e) == NO_STORAGE or str(e).startswith("gradcli does not support vmap over")):
            raise
    return _rows_one_by_one(pullback, basis, count)


def _rows_one_by_one(pullback: Callable, basis: list, count: int) -> list:
    rows = [pullback(*[b[i] for b in basis]) for i in range(basis[0].shape[0])]
    return [_stack([r[k] for r in rows]) for k in range(count)]


def _stack(rows: list) -> Tensor:
    from ..ops.joining import STACK
    return STACK(rows, 0)


def _check_jacobian_size(outputs: list, inputs: list) -> None:
    """Before the rows or columns are taken: the whole Jacobian must fit the memory budget."""
    elements = sum(o.numel() for o in outputs) * sum(x.numel() for x in inputs)
    budget.check_bytes(elements * max(o._dtype.itemsize for o in outputs), f"a Jacobian of {elements} elements")


def _results(jac: Any, aux: Any, has_aux: bool, keep: bool) -> Any:
    return (_plain(jac, keep), _plain(aux, keep)) if has_aux else _plain(jac, keep)


def jacfwd(func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    check_callable(func)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from .vmap import vmap
        picked = _argnums(argnums, len(args))
        leaves, spec = _flatten(_picked(args, picked))
        for leaf in leaves:
            if not isinstance(leaf, Tensor):   # (where PyTorch's jacfwd fails, counting its elements)
                raise TorchAttributeError(f"'{type(leaf).__name__}' object has no attribute 'numel'")
            if not leaf._dtype.is_floating_point:
                raise TorchRuntimeError("jacfwd: Expected all differentiated inputs to be floating point tensors")
        basis = _standard_basis(leaves)
        total = basis[0].shape[0]

        def at(*xs: Tensor) -> Any:
            return call(func, *_replace(args, picked, _unflatten(list(xs), spec)), **kwargs)

        def push(*tangents: Tensor) -> Any:   # one column of every Jacobian per sample of the batch
            result = jvp(at, tuple(leaves), tuple(tangents), has_aux=has_aux)
            _check_jacobian_size(_flatten(result[0])[0], leaves)
            return (result[1], result[2]) if has_aux else result[1]
        if total:
            columns = vmap(push, randomness=randomness)(*basis)
        else:   # (every input empty: no column; PyTorch's vmap over none gives empty Jacobians)
            result = jvp(at, tuple(leaves), tuple(leaves), has_aux=has_aux)
            columns = _map(lambda t: t.unsqueeze(0)[:0], (result[1], result[2]) if has_aux else result[1])
        aux = None
        if has_aux:   # (aux was batched with the columns: the first is the function's own)
            columns, aux = columns
            aux = _map(lambda a: a[0] if isinstance(a, Tensor) and total else a, aux)
        flat, out_spec = _flatten(columns)
        # per output: (its elements..., every input's elements), split by input
        jac = _unflatten([_unflatten([block.reshape(list(c.shape[1:]) + list(x.shape)) for block, x in
                                      zip(c.movedim(0, -1).split([x.numel() for x in leaves], -1), leaves)], spec)
                          for c in flat], out_spec)
        return _results(jac, aux, has_aux, _outer_graph((args, kwargs)))
    return wrapper


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    return jacfwd(jacrev(func, argnums), argnums)


def _check_chunk_size(chunk_size: Any) -> None:
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise TorchValueError("jacrev: `chunk_size` should be greater than 0.")


def members() -> dict[str, Any]:
    """``torch.func``'s members a script may use."""
    from .functional_call import functional_call, stack_module_state
    from .vmap import vmap
    return {"grad": grad, "grad_and_value": grad_and_value, "vjp": vjp, "jvp": jvp, "jacrev": jacrev,
            "jacfwd": jacfwd, "hessian": hessian, "functional_call": functional_call, "vmap": vmap,
            "stack_module_state": stack_module_state}


def functorch_members() -> dict[str, Any]:
    """``functorch``: the same transforms under their pre-2.0 names, each warning that it is
    deprecated when called (as PyTorch's functorch._src deprecated wrappers do)."""
    new_in_torch_func = ("functional_call", "stack_module_state")
    return {name: _deprecated(name, fn) for name, fn in members().items() if name not in new_in_torch_func}


def _deprecated(name: str, fn: Callable) -> Callable:
    new_name = "torch.vmap" if name == "vmap" else f"torch.func.{name}"   # (vmap lives in torch itself)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        warn(f"We've integrated functorch into PyTorch. As the final step of the integration, `functorch.{name}` "
             "is deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. Please "
             f"use `{new_name}` instead; see the PyTorch 2.0 release notes and/or the `torch.func` "
             "migration guide for more details https://pytorch.org/docs/main/func.migrating.html", "FutureWarning")
        return fn(*args, **kwargs)
    wrapper.__name__ = wrapper.__qualname__ = name
    return wrapper
