"""Short scenarios whose outcomes gradcli must share with PyTorch 2.13, line by line.

Each scenario takes a torch-like namespace ``T`` -- the real ``torch`` module, or
gradcli's torch functions gathered in a namespace -- runs a series of small
cases and returns one outcome per case: ``repr`` of the value (of ``tolist()``
for a tensor), or the error as ``Type: first line of the message`` cut at 160
characters.  tests/tools/make_parity_expected.py runs every scenario on real
PyTorch and writes the outcomes to tests/data/parity_expected.json;
tests/engine/test_pytorch_parity.py runs them on gradcli and compares.

This module imports neither torch nor gradcli.
"""

from __future__ import annotations

from typing import Any, Callable

from custom_function_scenarios import custom_functions


def _error_line(e: Exception) -> str:
    """``Type: message``: the type's bare name and the message's first line."""
    return type(e).__name__ + ": " + str(e).split("\n")[0][:160]


def _qualified_error_line(e: Exception) -> str:
    """As Python prints an uncaught error: a class outside the builtins with its module
    (``torch._C._LinAlgError``).  gradcli's error classes carry PyTorch's printed name
    as their own name, so they count as plain."""
    cls = type(e)
    plain = cls.__module__ in ("builtins", "gradcli.engine.errors")
    name = cls.__name__ if plain else f"{cls.__module__}.{cls.__qualname__}"
    return name + ": " + str(e).split("\n")[0][:160]


def _modified_tensor_error_line(e: Exception) -> str:
    """``Type: message``, where a "modified by an inplace operation" message is cut down to
    the tensor it names (``[torch.FloatTensor [2]], which is output 0 of Exp,``)."""
    message = str(e).split("\n")[0]
    if "modified by an inplace operation" in message:
        message = message[message.index("[torch"):message.index(" is at")]
    return type(e).__name__ + ": " + message[:160]


def _recorder(out: list[str], error_line: Callable[[Exception], str]) -> Callable[[Callable[[], Any]], None]:
    """A function that runs a case and appends its outcome to ``out``."""

    def record(f: Callable[[], Any]) -> None:
        try:
            r = f()
            out.append(repr(r.tolist() if hasattr(r, "tolist") else r))
        except Exception as e:  # noqa: BLE001 - the error is the outcome
            out.append(error_line(e))

    return record


def views_in_place_and_empty_tensors(T: Any) -> list[str]:
    """Gradients through expanded and split views changed in place, saved tensors changed
    in place, advanced indexing with empty and out-of-range parts, empty and 0-dim
    tensors in cat, softmax, cumsum, prod and var, signed zeros of clamp and cumsum, and
    kernels that refuse bool."""
    out: list[str] = []
    record = _recorder(out, _error_line)
    # AsStridedBackward0 of an expanded view adds up the repeats
    x = T.tensor([0.0, 0.5, 3.0], requires_grad=True)
    c = x.cumsum(0)
    e = c.expand(2, 3)
    with T.no_grad():
        c.mul_(2)
    (e * T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    record(lambda: x.grad)
    record(lambda: T.ones(3, 1, 2)[T.tensor([[3, -3], [1, 0]]), 1:1])
    record(lambda: T.ones(2, 3, 2)[..., T.tensor([[0, 0], [1, -3]])])
    record(lambda: T.ones(4, 1, 2).permute(2, 1, 0).index_select(1, T.tensor([1])))
    record(lambda: T.cat([T.ones(0), T.ones(0, dtype=T.bool)], -2))
    record(lambda: T.ones(1, 4, 2).expand(2, 1, 3))
    h = T.ones(2, 3, requires_grad=True) * 1
    parts = h.split(1)
    with T.no_grad():
        parts[0].fill_(2.0)
    record(lambda: T.lerp(T.ones(1, 3, dtype=T.float64), parts[0], 0.5))
    record(lambda: T.tensor(False).remainder_(T.tensor([3.25, -2.25])))
    record(lambda: T.clamp(-T.zeros(2), max=0.0))
    record(lambda: (-T.zeros(2)).clamp_(min=0.0, max=0.0))
    record(lambda: T.clamp(T.tensor([True]), min=T.tensor([True]), max=T.tensor([True])))
    record(lambda: T.clamp(T.tensor([True]), min=True))
    record(lambda: T.ones(0, 2, dtype=T.bool).softmax(0))
    v = T.tensor(-1.25, requires_grad=True)
    v.var(correction=2).backward()
    record(lambda: v.grad)
    w = T.ones(2, requires_grad=True)
    record(lambda: T.ones(2, dtype=T.int64).copy_(w).requires_grad)
    ex = T.tensor(False).expand(3, 3)
    record(lambda: ex.copy_(ex))
    y = T.lerp(w, T.ones(2), 0.5).sum()
    y.backward()
    record(lambda: y.backward())
    r = w * 1
    r.retain_grad()
    r.mul_(3)
    (r * 2).sum().backward()
    record(lambda: r.grad)
    g0 = w * 1
    gg = g0.gather(0, T.tensor([1]))
    with T.no_grad():
        g0.add_(1)
    record(lambda: gg.sum().backward())
    record(lambda: (-T.zeros(2)).cumsum(0))
    record(lambda: T.ones(0, dtype=T.bool).cumsum_(0))
    record(lambda: T.ones(2, 2, requires_grad=True).cumsum_(2))
    e2 = T.ones(1, 0, requires_grad=True)
    e2.prod().backward()
    record(lambda: e2.grad)
    m = (w * 1).max(0)
    m.indices.fill_(0)
    record(lambda: m.values.sum().backward())
    a = T.tensor(-2.5, requires_grad=True)
    b = T.tensor(-0.25, requires_grad=True)
    record(lambda: ((a * 1).sum() + (b * 1).sum() + b.floor_divide(b).sum()).backward())
    record(lambda: a.grad)
    n = T.tensor([1.0, float("nan"), 2.0], requires_grad=True)
    n.min().backward()
    record(lambda: n.grad)
    record(lambda: T.tensor([True]) @ T.tensor([1.0, 2.0], dtype=T.float64))
    return out


def memory_overlap_signed_zeros_and_infinities(T: Any) -> list[str]:
    """Memory overlap as PyTorch classifies it (copy_ and fill_ into expanded tensors), a
    saved tensor detached in place, slicing a 0-dim tensor and indexing a size-0 dim,
    signed zeros of maximum and clamp, empty reductions, gradients of norm, prod and
    cumprod at zeros and infinities, strides of results, and cat and stack of 0-dim
    tensors.  Needs ``T.linalg``."""
    out: list[str] = []
    record = _recorder(out, _error_line)
    # a saved non-leaf detached in place
    x = T.ones(3, requires_grad=True)
    h = x * 2
    y = h.gather(0, T.tensor([1]))
    h.detach_()
    record(lambda: y.sum().backward())
    # 0-dim slicing reports a bad step first; an index into a size-0 dim
    record(lambda: T.tensor(1.0)[::0])
    record(lambda: T.ones(0, 3)[T.tensor([0]), 0:0])
    record(lambda: T.ones(3, 2)[T.tensor([0]), T.tensor([], dtype=T.int64)])
    # overlap as PyTorch classifies it
    m = T.ones(3, 1)
    record(lambda: m.copy_(m.squeeze(1)))
    c = T.ones(3, 2)
    record(lambda: c.copy_(c[:, 0:1]).tolist())
    record(lambda: (lambda e: e.fill_(T.tensor(2.0)))(T.ones(3).expand(2, 3)))
    record(lambda: (lambda e: e.fill_(2.0).tolist())(T.ones(3).expand(2, 3)))
    record(lambda: T.tensor([1]).expand(1, 1).expand(1, 1).stride())
    # kernels and signs
    record(lambda: T.tensor([True]).div(T.tensor([True]), rounding_mode="floor"))
    record(lambda: T.floor_divide(T.tensor([True]), T.tensor([True])))
    record(lambda: T.maximum(T.tensor([0.0, -0.0]), T.tensor([-0.0, 0.0])).tolist())
    record(lambda: T.clamp(-T.zeros(2), min=T.zeros(2)).tolist())
    b = T.tensor([0.0, 2.0], requires_grad=True)
    (b ** False).sum().backward()
    record(lambda: b.grad)
    record(lambda: T.lerp(T.tensor(1.0), T.tensor(2.0), T.tensor(0.5, dtype=T.float64)).dtype)
    record(lambda: T.tensor(float("nan")).log_softmax(0))
    record(lambda: T.ones(0, dtype=T.bool).cumsum_(0))
    record(lambda: T.ones(0, 2).argmin(-2))
    record(lambda: T.ones(0, 2).amax(-2))
    n = T.tensor([2.0, 0.0], requires_grad=True)
    T.norm(n, 0).backward()
    record(lambda: n.grad)
    record(lambda: T.norm(T.ones(2, 2, 2), "fro", (0, 1, 2)))
    p = T.tensor([2.0, float("inf"), -1.0], requires_grad=True)
    p.prod().backward()
    record(lambda: p.grad)
    q = T.tensor([2.0, float("-inf"), 3.0], requires_grad=True)
    q.cumprod(0).sum().backward()
    record(lambda: q.grad)
    record(lambda: T.linalg.inv(T.eye(2).expand(2, 2, 2) + 1).stride())
    record(lambda: T.ones(2, 2, dtype=T.bool).expand(1, 2, 2) @ T.ones(1, 2, 2))
    record(lambda: T.cat([T.ones(1), T.tensor(2.0)]))
    record(lambda: T.stack([T.tensor(1.0), T.ones(1)], 1))
    e2 = (T.ones(2, requires_grad=True) * 1).expand(3, 2)
    e2.fill_(1.0)
    record(lambda: e2.sum().backward())
    record(lambda: T.pow(T.tensor([1.0]), T.tensor([True])).sum().backward() or "fine")
    g = T.ones(2, requires_grad=True) * 1
    z = g.sum()
    w = (g * 1)
    with T.no_grad():
        v = w.expand(2, 2)
    record(lambda: (v.gather(0, T.tensor([[0, 1]])).sum() + z).backward())
    record(lambda: (v.gather(0, T.tensor([[0, 1]])).sum()).backward(retain_graph=True) or "first")
    f = T.ones(3) * 1
    record(lambda: f.softmax(0).is_contiguous())
    record(lambda: T.ones(2, 3).t().softmax(0).stride())
    return out


def writes_through_views_and_expanded_tensors(T: Any) -> list[str]:
    """Index assignment into expanded tensors and views (which writes the base, which
    overlaps itself), in-place ops on a view of a leaf, which of two modified saved
    tensors an error names, a singular inverse, and autograd.grad through an empty cat.
    Errors are named as Python prints them (``torch._C._LinAlgError``).  Needs
    ``T.linalg`` and ``T.autograd``."""
    out: list[str] = []
    record = _recorder(out, _qualified_error_line)
    # of two modified saved tensors, the one PyTorch names
    x = T.ones(2, requires_grad=True)
    a = x * 1
    b = x.exp()
    c = T.pow(a.round(), b)
    with T.no_grad():
        a.add_(1)
        b.add_(1)
    record(lambda: c.sum().backward())
    record(lambda: T.linalg.inv(T.tensor([[[-3.5], [-2.75], [2.5]]]).index_select(-1, T.tensor([0, 0, 0]))))
    record(lambda: T.ones(2, 3, dtype=T.bool).hypot_(T.ones(2, 3, dtype=T.int64)))
    base = T.tensor([[0.75, -0.75], [-0.5, -1.75]])
    view = base.expand(3, 2, 2)
    view[[-3, -3, -3], -2:2:2] = 1.0
    record(lambda: base)
    leafy = T.ones(3)[1:]
    leafy.requires_grad_()
    record(lambda: leafy.exp_())
    m = T.tensor([[False, True], [True, False]])
    e = m.expand(2, 2, 2)
    record(lambda: e.__setitem__((T.tensor([[1, 0]]), m), False))
    v = T.tensor([True, False, True])
    record(lambda: v.T.__setitem__(v, T.ones(3, 2)))
    w = T.tensor([1.0, 2.0, 3.0]).isinf()
    record(lambda: w.__setitem__((None, w), 0.0))
    record(lambda: T.tensor(2.0).cumsum(1))
    h = T.ones(2, 2, requires_grad=True) * 1
    hv = h.view_as(h)
    h.detach_()
    with T.no_grad():
        h[0:1] = 1.75
    record(lambda: type(hv.grad_fn).__name__)
    z = T.ones(0, requires_grad=True)
    record(lambda: T.autograd.grad(T.cat([z, T.ones(0)], 2).sum(), [z]))
    return out


def saved_views_zero_gradients_and_check_order(T: Any) -> list[str]:
    """Which node an error names for a saved result that is a view, CopySlices after a
    backward, lerp with a bool weight, gradients of trace and cumprod at zeros and
    non-finite values, integer tensors that require grad, strides of cat and stack, the
    order of checks in in-place kernels, and integer division by zero.  An error that
    names a modified tensor is cut down to that name.  Needs ``T.autograd``."""
    out: list[str] = []
    record = _recorder(out, _modified_tensor_error_line)

    def grads(f: Any, *shape_values: Any) -> Any:
        x = T.tensor(*shape_values, requires_grad=True)
        f(x).backward()
        return x.grad

    # lerp's `1 - weight` for a bool weight tensor is bool minus bool; a Scalar weight is a number
    record(lambda: grads(lambda x: T.lerp(x, x * 2, T.tensor(False)).sum(), [1.0, 2.0]))
    record(lambda: grads(lambda x: T.lerp(x, x * 2, True).sum(), [1.0, 2.0]))
    # trace's gradient fills the diagonal of zeros
    for scale in (-2.0, float("inf"), float("nan")):
        record(lambda: grads(lambda x: T.trace(x) * scale, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    # CopySlices frees its function after a backward even when that saved nothing
    a = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    c[0] = 5.0
    y = c.sum()
    y.backward()
    record(lambda: y.backward())
    # an in-place op's saved result that is a view is named by the view's node while it lives
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
    v = x[1:]
    v.exp_()
    y = v.sum()
    x.add_(1)
    record(lambda: y.backward())
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
    v = x[1:]
    v.exp_()
    x.add_(1)
    record(lambda: type(v.grad_fn).__name__)  # a new AsStridedBackward0: the first is gone
    y = v.sum()
    record(lambda: y.backward())
    # cumprod's gradient with zeros: nothing past a slice's first zero (no NaN spreads)
    record(lambda: grads(lambda x: T.cumprod(x, 0).sum(), [0.0, 0.0, float("nan"), 0.0]))
    record(lambda: grads(lambda x: (T.cumprod(x, 1) * T.tensor([[1.0, -1.0, 2.0], [3.0, 1.0, 1.0]])).sum(),
                    [[2.0, 0.0, -3.0], [float("nan"), 1.5, 0.0]]))
    z = T.tensor([2.0, 0.0, float("nan")], requires_grad=True)
    record(lambda: T.autograd.grad(T.cumprod(z, 0).sum(), z, create_graph=True)[0])
    # an integer tensor that requires grad (through eq_): ops that clone self fail first
    w = T.tensor(-2.0, dtype=T.float64, requires_grad=True)
    n = T.tensor(0).eq_(w)
    record(lambda: n.clamp_(min=-0.5))
    record(lambda: n.mul_(2.5))
    record(lambda: n.clone().mul_(w))
    # converting to integers reads no history: a stale view of split converts
    s = (T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1).split([1, 1], 0)[0]
    with T.no_grad():
        s[0].fill_(5.0)
    record(lambda: s.int())
    record(lambda: s.double())
    # the in-place op's own edge does not keep a view's old node alive: only other users do
    for keep in (False, True):
        x = T.tensor([[1.0, 2.0, 3.0, 4.0]], requires_grad=True)
        v = ((x * 1).expand(2, 4) * 1)[0:1]
        v.tan_()
        user = v * 2 if keep else None
        v.add_(1)
        record(lambda: T.autograd.grad([v.sum()], [x]))
        del user
    # cat's result is contiguous unless all inputs are channels last; stack is cat then a view
    e = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)[0].expand(2, 3)
    record(lambda: [T.stack([e, e, e], d).stride() for d in (-1, 0, 1)] + [T.cat([e, e], 1).stride()])
    z = T.arange(24.0).reshape(1, 2, 3, 4).permute(0, 3, 1, 2)
    record(lambda: [T.cat([z, z], 0).stride(), T.stack([z, z]).stride(), T.cat([z, z.contiguous()]).stride()])
    record(lambda: type(T.stack([e, e], -1).reshape(-1).grad_fn).__name__)
    # slicing a 0-dim view: slice's node takes its edge before the kernel refuses the 0-dim
    o = T.unbind(T.tensor([-1.25], requires_grad=True), 0)[0]
    with T.no_grad():
        o._base[0:1] = 3.75
    record(lambda: o[0:])
    record(lambda: o[0:0:0])
    # an in-place kernel's own error comes after self's shape is checked against the broadcast
    record(lambda: T.tensor(True).hypot_(T.tensor([[False, True]])))
    record(lambda: T.tensor([True, False]).hypot_(T.tensor([False, True])))
    record(lambda: T.tensor([[4, 0]]).floor_divide_(T.tensor([[0], [1], [0]])))
    # integer division by zero fails only where something is computed
    record(lambda: T.ones(4, 0, dtype=T.int64) // 0)
    record(lambda: T.ones(4, 1, dtype=T.int64).fmod(T.zeros(0, dtype=T.int64)))
    record(lambda: T.ones(2, dtype=T.int64) % T.zeros(1, dtype=T.int64))
    return out


# Every scenario by name, in the order the tests run them.
def custom_autograd_functions(T: Any) -> list[str]:
    """Custom autograd Functions (custom_function_scenarios.py)."""
    out: list[str] = []
    custom_functions(T, _recorder(out, _error_line), out)
    return out


SCENARIOS: dict[str, Callable[[Any], list[str]]] = {
    fn.__name__: fn
    for fn in (views_in_place_and_empty_tensors, memory_overlap_signed_zeros_and_infinities,
               writes_through_views_and_expanded_tensors, saved_views_zero_gradients_and_check_order,
               custom_autograd_functions)
}
