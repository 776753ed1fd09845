"""Drawing random programs with hypothesis.

The generator knows the shapes and values of what it has built so far by
running every drawn step on torch as it goes (a dry run).  That lets each op
pick operands that mostly fit, keeps an erroring step only now and then (the
program ends there, and the error is compared), and avoids numerically
fragile spots.

Fragility: the engine computes float32 in float32 as PyTorch does, but
transcendental functions and summation orders may differ in the last bits.
Inputs are small multiples of 1/4 and a value stays *exact* while it is made
by ops that give the same bits in both libraries (see ``graph_ops.EXACT``)
and lands on the grid of multiples of 1/64.  A discontinuous op (floor,
comparisons, max's index, abs's gradient, a pole of log or 1/x, ...) is only
applied to an inexact value that keeps a margin from its discontinuities.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np
from hypothesis import strategies as st

from graph_program import Const, Finish, Input, Program, Ref, Runner, Step, TorchBackend

TORCH = TorchBackend()
torch = TORCH.ns

FLOAT_VALUES = [x / 4 for x in range(-16, 17)]
SMALL_FLOATS = [0.0, 0.5, 1.0, 2.0, -1.0, -0.5, 1.5, 3.0, -2.0]
INT_VALUES = list(range(-5, 6))
GRID = 64.0
GRID_LIMIT = 4096.0


def on_grid(a: np.ndarray) -> bool:
    """All elements are multiples of 1/64 small enough that sums of them stay exact."""
    if a.dtype.kind in "biu":
        return True
    if not np.all(np.isfinite(a)):
        return False
    return bool(np.all(np.abs(a) <= GRID_LIMIT) and np.all(a * GRID == np.round(a * GRID))
                and np.abs(a).sum() <= GRID_LIMIT)


def scalar_on_grid(x: Any) -> bool:
    return not isinstance(x, float) or (abs(x) <= GRID_LIMIT and x * GRID == round(x * GRID))


class Gen:
    """The state of one program being drawn: hypothesis's ``draw`` and the dry run."""

    def __init__(self, draw: Callable) -> None:
        self.draw = draw
        self.program = Program([], [])
        self.runner: Runner | None = None
        self.exact: list[Any] = []  # per env entry: bool, or a list of bools for tuples

    # -- random choices ---------------------------------------------------------------------
    def coin(self, p: float) -> bool:
        # True for the top of the range: hypothesis favours small draws, and those should give
        # the common case (no rare event), not the rare one
        return self.draw(st.integers(0, 999)) >= round((1 - p) * 1000)

    def choice(self, options: list) -> Any:
        return self.draw(st.sampled_from(options))

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    # -- what exists so far -------------------------------------------------------------------
    def value(self, ref: Ref) -> Any:
        return self.runner.resolve(ref)

    def is_exact(self, ref: Ref) -> bool:
        e = self.exact[ref.index]
        return e if ref.item is None else e[ref.item]

    def refs(self, pred: Callable[[Any], bool] | None = None) -> list[Ref]:
        out = []
        for i, v in enumerate(self.runner.env):
            items = [(None, v)] if not isinstance(v, (tuple, list)) else list(enumerate(v))
            for k, t in items:
                if isinstance(t, torch.Tensor) and (pred is None or pred(t)):
                    out.append(Ref(i, k))
        return out

    def pick(self, pred: Callable[[Any], bool] | None = None) -> Ref | None:
        refs = self.refs(pred)
        if not refs:
            return None
        if not self.coin(0.3):
            # mostly values on a gradient path, so that most formulas get checked
            graded = [r for r in refs if self.value(r).requires_grad]
            refs = graded or refs
        # Recent values more often: graphs grow deep rather than wide.
        weights = list(range(1, len(refs) + 1))
        i = self.draw(st.integers(0, sum(weights) - 1))
        for ref, w in zip(refs, weights):
            if i < w:
                return ref
            i -= w
        return refs[-1]

    # -- making new operands ----------------------------------------------------------------------
    def array(self, shape: tuple, dtype: str) -> np.ndarray:
        n = int(np.prod(shape))
        if dtype == "bool":
            values = self.draw(st.lists(st.booleans(), min_size=n, max_size=n))
        elif dtype.startswith("int"):
            values = self.draw(st.lists(st.sampled_from(INT_VALUES), min_size=n, max_size=n))
        else:
            values = self.draw(st.lists(st.sampled_from(FLOAT_VALUES), min_size=n, max_size=n))
        return np.array(values, dtype=dtype).reshape(shape)

    def const(self, shape: tuple, dtype: str) -> Const:
        return Const(self.array(shape, dtype))

    def scalar(self, kind: str | None = None) -> Any:
        kind = kind or self.choice(["float", "float", "int", "int", "bool"])
        if kind == "float":
            return self.choice(SMALL_FLOATS + [0.3, -2.5, 4.0])
        if kind == "int":
            return self.choice([0, 1, 2, 3, -1, -2])
        return self.choice([True, False])

    def broadcastable(self, shape: tuple) -> tuple:
        """A shape that broadcasts with ``shape``: a suffix, with some sizes turned into 1."""
        n = self.integer(0, len(shape))
        out = [1 if self.coin(0.3) else s for s in shape[len(shape) - n:]]
        if self.coin(0.1):
            out = [self.integer(1, 3)] + out  # a new leading dim
        if self.coin(0.04) and out:
            out[self.integer(0, len(out) - 1)] = self.integer(2, 5)  # most likely a mismatch
        return tuple(out)

    def operand(self, like: Any, scalars: bool = True) -> Any:
        """A second operand for ``like``: an existing tensor, a new constant, or a Python number."""
        r = self.integer(0, 99)
        if scalars and r < 25:
            return self.scalar()
        if r < 70:
            shape = tuple(like.shape)
            ref = self.pick(lambda t: _broadcasts(tuple(t.shape), shape))
            if ref is not None:
                return ref
        dtype = self.choice(["float32"] * 5 + ["float64", "int64", "int32", "bool"])
        if like.dtype == torch.float64 and self.coin(0.5):
            dtype = "float64"
        return self.const(self.broadcastable(tuple(like.shape)), dtype)

    def dim(self, ndim: int, bad: float = 0.03) -> int:
        if self.coin(bad):
            return self.choice([ndim, -ndim - 1, ndim + 1])
        if ndim == 0:
            return self.choice([0, -1])
        return self.integer(-ndim, ndim - 1)

    def dims(self, ndim: int) -> tuple:
        if ndim == 0:
            return self.choice([(), (0,)])
        k = self.integer(1, ndim)
        return tuple(self.draw(st.permutations(range(ndim)))[:k])

    # -- fragility (only for inexact float operands) ---------------------------------------------
    def margin(self, t: Any) -> float:
        return 1e-3 if t.dtype == torch.float32 else 1e-9

    def inexact(self, arg: Any) -> np.ndarray | None:
        """The float values of ``arg`` if it is an inexact tensor, else None."""
        if isinstance(arg, Ref) and not self.is_exact(arg):
            t = self.value(arg)
            if t.is_floating_point():
                return t.detach().numpy()
        return None

    def near(self, arg: Any, points: Iterable[float] = (0.0,), scale: bool = True) -> bool:
        """True when an inexact operand has an element within the margin of one of ``points``."""
        a = self.inexact(arg)
        if a is None or a.size == 0:
            return False
        m = self.margin(self.value(arg))
        tol = m * np.maximum(1.0, np.abs(a)) if scale else m
        return any(bool(np.any(np.abs(a - p) <= tol)) for p in points)

    def near_integer(self, arg: Any, half: bool = False, times: float = 1.0) -> bool:
        a = self.inexact(arg)
        if a is None or a.size == 0:
            return False
        a = a.astype(np.float64) * times
        fin = a[np.isfinite(a)]
        frac = np.abs(fin - np.round(fin - 0.5) - 0.5) if half else np.abs(fin - np.round(fin))
        return bool(np.any(frac <= self.margin(self.value(arg)) * np.maximum(1.0, np.abs(fin))))

    def near_tie(self, a: Any, b: Any) -> bool:
        """Elementwise ties of two operands, one of them inexact."""
        va, vb = self.inexact(a), self.inexact(b)
        if va is None and vb is None:
            return False
        x = self._numbers(a).astype(np.float64)
        y = self._numbers(b).astype(np.float64)
        try:
            diff = np.abs(x - y)
        except ValueError:
            return False
        m = 1e-3 if torch.float32 in (getattr(self._tensor(a), "dtype", None),
                                      getattr(self._tensor(b), "dtype", None)) else 1e-9
        return bool(np.any(diff <= m * np.maximum(1.0, np.maximum(np.abs(x), np.abs(y)))))

    def near_tie_along(self, arg: Any, dims: tuple | None, absolute: bool = False) -> bool:
        """Two nearly equal extremes along ``dims`` (max/min/argmax of an inexact operand)."""
        a = self.inexact(arg)
        if a is None or a.size <= 1:
            return False
        a = np.abs(a) if absolute else a
        if dims is None or a.ndim == 0:
            rows = a.reshape(1, -1)
        else:
            dims = sorted({d % a.ndim for d in dims})
            moved = np.moveaxis(a, dims, list(range(a.ndim - len(dims), a.ndim)))
            rows = moved.reshape(-1, int(np.prod([a.shape[d] for d in dims])))
        if rows.shape[-1] < 2:
            return False
        s = np.sort(rows.astype(np.float64), axis=-1)
        m = self.margin(self.value(arg))
        for x, y in ((s[:, -1], s[:, -2]), (s[:, 0], s[:, 1])):
            if np.any(np.abs(x - y) <= m * np.maximum(1.0, np.abs(x))):
                return True
        return False

    def _tensor(self, arg: Any) -> Any:
        return self.value(arg) if isinstance(arg, Ref) else None

    def _numbers(self, arg: Any) -> np.ndarray:
        if isinstance(arg, Ref):
            return self.value(arg).detach().numpy()
        if isinstance(arg, Const):
            return arg.array
        return np.asarray(arg)

    def grad_into_integers(self, step: Step) -> bool:
        """An in-place step that would make an integer or bool tensor require grad.

        PyTorch lets eq_, fill_, index_put_... on an integer tensor take a history from an
        operand that requires grad (gradcli copies that), but a backward through it then
        trips an internal assert in PyTorch's engine.  Such states are not generated.
        """
        if step.target is None or step.no_grad or step.name == "copy_":
            return False
        if self.value(step.target).is_floating_point():
            return False
        return any(isinstance(a, Ref) and bool(self.value(a).requires_grad) for a in step.operands())

    # -- recording a step ----------------------------------------------------------------------------
    def operands_exact(self, step: Step) -> bool:
        def exact(a: Any) -> bool:
            if isinstance(a, Ref):
                return self.is_exact(a)
            if isinstance(a, Const):
                return on_grid(a.array)
            return not isinstance(a, float) or scalar_on_grid(a)
        return all(exact(a) for a in step.operands())


def _broadcasts(a: tuple, b: tuple) -> bool:
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


# -- drawing a whole program ------------------------------------------------------------------------

Table = list[tuple[int, Callable[["Gen"], Step | None]]]
DTYPES = ["float32"] * 6 + ["float64"] * 2 + ["int64", "int32", "bool"]


def draw_inputs(g: Gen, graded: bool = False) -> list[Input]:
    nd = g.choice([0, 1, 1, 2, 2, 2, 3, 3])
    base = [g.integer(1, 4) for _ in range(nd)]
    if nd >= 2 and g.coin(0.3):
        base[-1] = base[-2]  # square matrices for det/inv/trace
    if base and g.coin(0.03):
        base[g.integer(0, nd - 1)] = 0  # empty tensors
    inputs = []
    for i in range(g.integer(1, 3)):
        shape = tuple(base) if i == 0 or g.coin(0.5) else g.broadcastable(tuple(base))
        dtype = g.choice(["float32", "float32", "float64"] if graded else DTYPES)
        inputs.append(Input(g.array(shape, dtype), dtype.startswith("float") and (graded or not g.coin(0.15))))
    return inputs


def _storage(t: Any) -> int:
    return t.untyped_storage().data_ptr()


def _record(g: Gen, step: Step, value: Any) -> None:
    """Append a successful step and update which values are exact."""
    write_exact = step.exact_op and g.operands_exact(step)
    g.program.steps.append(step)
    if step.target is not None:
        target = g.value(step.target)
        shared = _storage(target)
        for i, v in enumerate(g.runner.env[:-1]):
            items = v if isinstance(v, (tuple, list)) else [v]
            flags = g.exact[i] if isinstance(v, (tuple, list)) else [g.exact[i]]
            new = []
            for t, e in zip(items, flags):
                if isinstance(t, torch.Tensor) and _storage(t) == shared and t.numel():
                    if t is target:
                        e = write_exact and on_grid(t.detach().numpy())
                    elif not write_exact:
                        e = False
                new.append(e)
            g.exact[i] = new if isinstance(v, (tuple, list)) else new[0]
    if isinstance(value, (tuple, list)):
        g.exact.append([write_exact and isinstance(t, torch.Tensor) and on_grid(t.detach().numpy())
                        for t in value])
    elif isinstance(value, torch.Tensor):
        g.exact.append(write_exact and on_grid(value.detach().numpy()))
    else:
        g.exact.append(True)


def draw_finish(g: Gen, always: bool = False) -> Finish | None:
    refs = g.refs(lambda t: t.is_floating_point() and t.requires_grad)
    if not refs or (g.coin(0.05) and not always):
        return None
    # (nearly) everything that requires grad: a wrong formula anywhere then shows in some .grad
    chosen = [r for r in refs if g.coin(0.9)] or [refs[-1]]
    weights = []
    for r in chosen:
        t = g.value(r)
        n = t.numel()
        w = g.draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, -1.0]), min_size=n, max_size=n))
        weights.append(np.array(w, dtype=str(t.dtype).replace("torch.", "")).reshape(tuple(t.shape)))
    again = g.coin(0.12)
    return Finish(chosen, weights, mode="grad" if g.coin(0.25) else "backward", again=again,
                  retain_graph=again and g.coin(0.5))


MAX_NUMEL = 64


def _too_big(value: Any) -> bool:
    items = value if isinstance(value, (tuple, list)) else [value]
    return len(items) > 8 or any(isinstance(t, torch.Tensor) and t.numel() > MAX_NUMEL for t in items)


def build_program(draw: Callable, table: Table, max_steps: int = 8, keep_error: float = 0.3,
                  gradients: bool = False) -> Program:
    """A program of up to ``max_steps`` steps drawn from ``table``.  With ``gradients``, a
    gradient-focused one: float inputs that require grad, no no_grad, nothing in place."""
    g = Gen(draw)
    g.program.inputs = draw_inputs(g, graded=gradients)
    g.runner = Runner(TORCH, g.program)
    g.exact = [True] * len(g.program.inputs)
    weights = [w for w, _ in table]
    total = sum(weights)
    for _ in range(g.integer(1, max_steps)):
        for _attempt in range(6):
            r = g.integer(0, total - 1)
            for w, gen in table:
                if r < w:
                    break
                r -= w
            step = gen(g)
            if step is None or gradients and (step.target is not None or step.kind == "call"):
                continue
            if g.grad_into_integers(step):
                continue
            if gradients:
                step.no_grad = False
            value, _ = g.runner.step(step)
            if isinstance(value, Exception):
                if g.coin(keep_error):
                    g.program.steps.append(step)
                    g.exact.append(False)
                    g.program.finish = draw_finish(g, gradients)
                    return g.program
                g.runner.env.pop()
                continue
            if _too_big(value):
                g.runner.env.pop()  # only out-of-place steps grow tensors, so nothing to undo
                continue
            _record(g, step, value)
            break
    g.program.finish = draw_finish(g, gradients)
    return g.program
