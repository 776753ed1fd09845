"""Running a program on torch and on gradcli in lockstep, and comparing everything observable.

After every step: the value (or the error's type and first line), the
warnings, whether the result *is* an earlier value (``x += 1``,
``contiguous()``), and for tensors their dtype, shape, values,
``requires_grad``/``is_leaf``/``retains_grad``, version counter and the
whole backward graph under them (node names, edges and output numbers).
At the end: every value again (in-place writes reach earlier values through
views), then the weighted sum's backward and every gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graph_gen import TORCH
from graph_program import GradcliBackend, Program, Ref, Runner

GRADCLI = GradcliBackend()

# (rtol, atol relative to the tensor's largest finite magnitude)
VALUE_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}
GRAD_TOL = {"float32": (1e-3, 1e-4), "float64": (1e-7, 1e-10)}


def error_name(error: BaseException) -> str:
    """The name Python prints for an error: ``RuntimeError``, ``torch._C._LinAlgError``."""
    cls = type(error)
    if cls.__module__ in ("builtins", "gradcli.engine.errors"):
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def first_line(error: BaseException) -> str:
    text = str(error)
    return text.split("\n", 1)[0]


def describe(x: Any) -> str:
    if isinstance(x, BaseException):
        return f"{error_name(x)}: {first_line(x)}"
    return repr(x)[:300]


def graph_of(fn: Any) -> list:
    """The backward graph under ``fn`` in first-visit order: (name, [(child number, output_nr)])."""
    if fn is None:
        return []
    ids: dict[int, int] = {id(fn): 0}
    order = [fn]
    out = []
    i = 0
    while i < len(order) and i < 200:
        node = order[i]
        edges = []
        name = type(node).__name__
        if name != "AccumulateGrad":
            for child, nr in node.next_functions:
                if child is None:
                    edges.append((None, nr))
                    continue
                if id(child) not in ids:
                    ids[id(child)] = len(order)
                    order.append(child)
                edges.append((ids[id(child)], nr))
        out.append((name, edges, _saved_names(node)))
        i += 1
    return out


def _saved_names(node: Any) -> list:
    """The node's ``_saved_*`` attributes (what PyTorch's node declares; gradcli's declares them
    in ``__script_attrs__``, the names a script may read), each with what it reads as: a tensor
    or None, anything else as it prints."""
    names = getattr(type(node), "__script_attrs__", None)
    if names is None:
        names = dir(node)
    out = []
    for name in sorted(n for n in names if n.startswith("_saved_")):
        try:
            value = getattr(node, name)
        except Exception as error:   # (a saved tensor modified in place, say: its error)
            out.append((name, error_name(error)))
            continue
        out.append((name, _saved_shown(value)))
    shown = dict(out)
    for name, value in out:
        sizes = shown.get(name.replace("_sym_strides", "_sym_sizes"))
        if name.endswith("_sym_strides") and isinstance(value, list) and isinstance(sizes, list) \
                and len(sizes) == len(value):
            # a size-1 dim's stride is not compared: NumPy's reshape gives it other values than
            # PyTorch's view, and no kernel reads it; nor an empty tensor's strides, which for
            # the inputs are NumPy's (all 0 since NumPy 2.4) on the torch side
            empty = "0" in sizes
            shown[name] = [v if n != "1" and not empty else "any" for v, n in zip(value, sizes)]
    out = list(shown.items())
    if dict(out).get("_saved_size") and "'0'" in str(dict(out)["_saved_size"]):
        # an empty view's storage offset: NumPy keeps no offset for an empty array (gradcli says 0)
        out = [(n, v) for n, v in out if n != "_saved_storage_offset"]
    return out


def _saved_shown(value: Any) -> Any:
    # Whether a node keeps an input it does not need is not compared: a tensor and None read
    # alike (the nodes of views made under no_grad keep more in PyTorch).
    if isinstance(value, (list, tuple)):
        return [_saved_shown(v) for v in value]
    if value is None or (hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, (int, float))):
        return "a tensor or None"
    return repr(value)


# Steps whose zero results take their sign from the BLAS: PyTorch's gives -0.0 for a single
# negative-zero product in some of its matmul paths, NumPy's adds it to +0.0.
ZERO_SIGN_FREE = {"matmul", "mm", "mv", "bmm", "dot", "linalg.det", "linalg.inv", "det", "inverse"}


def same_array(want: np.ndarray, got: np.ndarray, dtype: str, tol: dict, where: str,
               zero_sign_free: bool = False) -> None:
    assert want.shape == got.shape, f"{where}: shape {got.shape} != torch's {want.shape}"
    if dtype not in tol:
        assert np.array_equal(want, got), f"{where}: values\n gradcli {got.tolist()}\n torch   {want.tolist()}"
        return
    rtol, atol = tol[dtype]
    w, g = want.astype(np.float64), got.astype(np.float64)
    bad = np.isnan(w) != np.isnan(g)
    finite = np.isfinite(w)
    bad |= ~finite & ~np.isnan(w) & (w != g)
    scale = max(1.0, float(np.max(np.abs(w[finite])))) if finite.any() else 1.0
    with np.errstate(all="ignore"):
        bad |= finite & ~(np.abs(g - w) <= atol * scale + rtol * np.abs(w))
    # A zero's sign prints ("-0."), so exact zeros must agree in sign too (except where the
    # BLAS decides it: see ZERO_SIGN_FREE).
    if not zero_sign_free:
        bad |= (w == 0) & (g == 0) & (np.signbit(w) != np.signbit(g))
    assert not bad.any(), f"{where}: values\n gradcli {got.tolist()}\n torch   {want.tolist()}"


def same_tensor(t: Any, g: Any, where: str, tol: dict = VALUE_TOL, zero_sign_free: bool = False) -> None:
    assert GRADCLI.is_tensor(g), f"{where}: gradcli gave {describe(g)}, torch a tensor"
    dtype = str(t.dtype).replace("torch.", "")
    assert g.dtype.name == dtype, f"{where}: dtype {g.dtype} != torch's {t.dtype}"
    assert tuple(g.shape) == tuple(t.shape), f"{where}: shape {tuple(g.shape)} != torch's {tuple(t.shape)}"
    same_array(TORCH.array(t), GRADCLI.array(g), dtype, tol, where, zero_sign_free)
    # A gradient's version counter is the engine's business (PyTorch accumulates in place).
    is_value = tol["float32"] is VALUE_TOL["float32"]
    attrs = ("requires_grad", "is_leaf", "retains_grad") + (("_version",) if is_value else ())
    for attr in attrs:
        want, got = _get(t, attr), _get(g, attr)
        if isinstance(want, BaseException):
            same_value(want, got, f"{where}: {attr}")
            return
        assert got == want, f"{where}: {attr} {describe(got)} != torch's {describe(want)}"
    want, got = _get(t, "grad_fn"), _get(g, "grad_fn")
    if isinstance(want, BaseException) or isinstance(got, BaseException):
        same_value(want, got, f"{where}: grad_fn")
        return
    want, got = graph_of(want), graph_of(got)
    assert got == want, f"{where}: backward graph\n gradcli {got}\n torch   {want}"


def _get(x: Any, attr: str) -> Any:
    """An attribute, or the error reading it raises (a view's grad_fn can refuse)."""
    try:
        return getattr(x, attr)
    except Exception as error:  # noqa: BLE001
        return error


def same_value(t: Any, g: Any, where: str, tol: dict = VALUE_TOL, zero_sign_free: bool = False) -> None:
    if isinstance(t, BaseException):
        assert isinstance(g, BaseException), f"{where}: torch raised {describe(t)}, gradcli gave {describe(g)}"
        assert (error_name(g), first_line(g)) == (error_name(t), first_line(t)), \
            f"{where}: error\n gradcli {describe(g)}\n torch   {describe(t)}"
        return
    if isinstance(g, BaseException):
        raise AssertionError(f"{where}: gradcli raised {describe(g)}, torch gave {describe(t)}") from g
    if TORCH.is_tensor(t):
        same_tensor(t, g, where, tol, zero_sign_free)
    elif isinstance(t, (tuple, list)):
        # (gradcli's return types carry PyTorch's tp_name, "torch.return_types.max", as __name__)
        assert type(g).__qualname__ == type(t).__qualname__ and len(g) == len(t), \
            f"{where}: {type(g).__qualname__} of {len(g)} != torch's {type(t).__qualname__} of {len(t)}"
        for k, (a, b) in enumerate(zip(t, g)):
            same_value(a, b, f"{where}[{k}]", tol, zero_sign_free)
    elif t is None or isinstance(t, bool):
        assert g is t, f"{where}: {g!r} != torch's {t!r}"
    else:
        assert type(g) is type(t) and np.isclose(g, t, equal_nan=True), f"{where}: {g!r} != torch's {t!r}"


# TORCH_WARN_ONCE warnings appear once per process in PyTorch, so whether one shows up here
# depends on what ran before in this process; gradcli's once-only behaviour has unit tests.
ONCE = ("The use of `x.T` on tensors", "Tensor.T is deprecated on 0-D", "Tensor.mT is deprecated on 0-D",
        # AccumulateGrad's stride check of an empty gradient: gradcli's tensors have no strides of their own
        "grad and param do not obey the gradient layout contract")


def _warnings(seen: list[str]) -> list[str]:
    return [w for w in seen if not w.startswith(ONCE)]


def _identity(env: list, value: Any) -> list[int]:
    return [i for i, v in enumerate(env[:-1]) if v is value]


def _touches_float32(program: Program) -> bool:
    """Anything but a pure float64 program may compute in float32 (float ops on integers do)."""
    return "float32" in repr(program) or any(a.array.dtype != np.float64 for a in program.inputs) or any(
        isinstance(x, (int, bool)) for s in program.steps for x in s.args)


def _zero_sign_free(step: Any, free: set[int]) -> bool:
    """A matmul's zeros, and what is made from them, may differ in sign (see ZERO_SIGN_FREE)."""
    if step.name in ZERO_SIGN_FREE:
        return True
    return any(isinstance(a, Ref) and a.index in free for a in step.operands())


def check(program: Program) -> None:
    """Interpret ``program`` with both libraries and assert they agree on everything."""
    t, g = Runner(TORCH, program), Runner(GRADCLI, program)
    n = len(program.inputs)
    # A float64 value made from float32 math carries float32's rounding.
    vtol = {**VALUE_TOL, "float64": VALUE_TOL["float32"]} if _touches_float32(program) else VALUE_TOL
    free_values: set[int] = set()
    for i, step in enumerate(program.steps):
        tv, tw = t.step(step)
        gv, gw = g.step(step)
        where = f"v{n + i} = {step!r}\n{program!r}\n"
        free = _zero_sign_free(step, free_values)
        if free:
            free_values.add(n + i)
            if step.target is not None:
                free_values.add(step.target.index)
        same_value(tv, gv, where, vtol, free)
        assert _warnings(gw) == _warnings(tw), f"{where}: warnings\n gradcli {gw}\n torch   {tw}"
        if not isinstance(tv, (tuple, list, type(None), BaseException)):
            assert _identity(g.env, gv) == _identity(t.env, tv), f"{where}: the result is an earlier value"
        if isinstance(tv, BaseException):
            break
    for k, (tv, gv) in enumerate(zip(t.env, g.env)):
        if not isinstance(tv, BaseException):
            same_value(tv, gv, f"v{k} at the end\n{program!r}\n", vtol, k in free_values)
    if program.finish is None:
        return
    where = f"backward\n{program!r}\n"
    # A float64 gradient that flowed through float32 math carries float32's rounding.
    tol = {**GRAD_TOL, "float64": GRAD_TOL["float32"]} if _touches_float32(program) else GRAD_TOL
    (t1, t2, tw), (g1, g2, gw) = t.finish(), g.finish()
    free = any(s.name in ZERO_SIGN_FREE for s in program.steps)  # their gradients use the BLAS too
    for want, got in ((t1, g1), (t2, g2)):
        same_value(want, got, where, tol, free)
    assert _warnings(gw) == _warnings(tw), f"{where}: warnings\n gradcli {gw}\n torch   {tw}"
    for k, (tv, gv) in enumerate(zip(t.env, g.env)):
        items = list(zip(tv, gv)) if isinstance(tv, (tuple, list)) else [(tv, gv)]
        for a, b in items:
            if TORCH.is_tensor(a) and (_get(a, "is_leaf") is True or a.retains_grad):
                want, got = a.grad, b._grad
                assert (want is None) == (got is None), \
                    f"v{k}.grad: gradcli {describe(got)}, torch {describe(want)}\n{where}"
                if want is not None:
                    same_tensor(want, got, f"v{k}.grad\n{where}", tol, free)
