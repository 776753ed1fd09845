"""A scenario for parity_scenarios.py: custom autograd Functions, case by case.

Subclasses of ``T.autograd.Function`` written as Python classes (as a script's
classes are), run on PyTorch and on gradcli: forward with ctx or with a
separate setup_context, what backward may return and PyTorch's checks of it,
dirty and non-differentiable outputs, inputs returned as-is, saved tensors
and their version checks, materialized gradients, once_differentiable,
double backward and gradcheck.

This module imports neither torch nor gradcli.
"""

from __future__ import annotations

from typing import Any, Callable


def custom_functions(T: Any, record: Callable[[Callable[[], Any]], None], out: list[str]) -> None:
    Function = T.autograd.Function
    once_differentiable = T.autograd.function.once_differentiable

    def node(t: Any) -> str:
        fn = t.grad_fn
        return "None" if fn is None else type(fn).__name__

    def edges(t: Any) -> list:
        return [None if n is None else (type(n).__name__, nr) for n, nr in t.grad_fn.next_functions]

    def leaf(*values: float, dtype: Any = None) -> Any:
        return T.tensor(list(values), requires_grad=True, dtype=dtype)

    class Scaled(Function):
        @staticmethod
        def forward(ctx, a, b, scale, tag="none"):
            ctx.save_for_backward(a, b)
            ctx.scale = scale
            ctx.seen = (ctx.needs_input_grad, T.is_grad_enabled(), a.requires_grad)
            return a * b * scale

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            ga = grad * b * ctx.scale if ctx.needs_input_grad[0] else None
            gb = grad * a * ctx.scale if ctx.needs_input_grad[1] else None
            return ga, gb, None, None

    a, b, c = leaf(1., 2., 3.), leaf(4., 5., 6.), T.tensor([.5, .5, .5])
    y = Scaled.apply(a, c, 2.0, tag="kw")
    record(lambda: (node(y), edges(y), y.grad_fn.seen, y.grad_fn.needs_input_grad, y.requires_grad))
    record(lambda: T.autograd.grad(y.sum(), a))
    record(lambda: T.autograd.grad(Scaled.apply(a, b, 3).sum(), [a, b]))
    record(lambda: node(Scaled.apply(c, c, 1.0)))

    def under_no_grad() -> Any:
        with T.no_grad():
            z = Scaled.apply(a, b, 1.0)
        return z.requires_grad, node(z)
    record(under_no_grad)

    class Cube(Function):
        @staticmethod
        def forward(x, k=2.0):
            return k * x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.count = len(inputs)
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * ctx.k * x ** 2, None

    x = leaf(-1., .5, 2.)
    record(lambda: (Cube.apply(x).grad_fn.count, Cube.apply(x, k=0.5).tolist()))
    record(lambda: T.autograd.grad(Cube.apply(x, 1.5).sum(), x))
    record(lambda: T.autograd.grad(T.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)[0].sum(), x))

    # keyword arguments go to forward by position
    class Keywords(Function):
        @staticmethod
        def forward(ctx, t, a=1, b=2, *rest, c=3):
            ctx.got = (a, b, rest, c, ctx.needs_input_grad)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    for call in (lambda: Keywords.apply(x, b=5, a=x), lambda: Keywords.apply(x, b=5),
                 lambda: Keywords.apply(x, d=1), lambda: Keywords.apply(x, 1, a=1),
                 lambda: Keywords.apply(b=1, t=x), lambda: Keywords.apply(x, c=4),
                 lambda: Keywords.apply(x, 1, 2, 3, 4), lambda: Keywords.apply()):
        record(lambda: call().grad_fn.got)

    class KeywordsWithSetup(Function):
        @staticmethod
        def forward(t, k=None, *, j=3):
            return t * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.got = (len(inputs), inputs[1], ctx.needs_input_grad)

        @staticmethod
        def backward(ctx, g):
            return g, None

    for call in (lambda: KeywordsWithSetup.apply(x), lambda: KeywordsWithSetup.apply(x, k=6),
                 lambda: KeywordsWithSetup.apply(x, q=6), lambda: KeywordsWithSetup.apply(),
                 lambda: KeywordsWithSetup.apply(x, j=1)):
        record(lambda: call().grad_fn.got)

    # what backward returns, and PyTorch's checks of it
    returns = [lambda g: (g, 1.0), lambda g: (g, None, None), lambda g: (g, None, 3), lambda g: ("s", None),
               lambda g: [g, None], lambda g: None, lambda g: g, lambda g: (g.double(), None),
               lambda g: (g.long(), None), lambda g: (g[0], None), lambda g: (g.sum(), None),
               lambda g: (T.ones(2, 1), None), lambda g: (g.unsqueeze(0).expand(3, 2), None)]

    for make in returns:
        class Returns(Function):
            @staticmethod
            def forward(ctx, t, k):
                return t * k

            @staticmethod
            def backward(ctx, g, make=make):
                return make(g)

        record(lambda: _grad_of(T, Returns, leaf(1., 2.)))

    # outputs: non-tensors, integers, non-differentiable, several
    class Outputs(Function):
        @staticmethod
        def forward(ctx, t):
            values, idx = t.max(dim=0)
            ctx.mark_non_differentiable(idx)
            return values, idx, 7, t.long(), t * 2

        @staticmethod
        def backward(ctx, gv, gi, g7, gl, g2):
            ctx.got = [None if g is None else g.tolist() for g in (gv, gi, g7, gl, g2)]
            return gv + 2 * g2

    m = leaf(3., -1., 2.)
    outs = Outputs.apply(m)
    record(lambda: [(o.requires_grad, node(o), o.output_nr) if hasattr(o, "requires_grad") else o for o in outs])
    record(lambda: (outs[4].sum().backward(), outs[4].grad_fn.got, m.grad.tolist()))

    class NoMaterialize(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.set_materialize_grads(False)
            return t * 2, t * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.got = (g1 is None, g2 is None)
            return (g1 if g1 is not None else 0 * g2) + (g2 if g2 is not None else 0)

    p = leaf(1., 1.)
    u, v = NoMaterialize.apply(p)
    record(lambda: (u.sum().backward(), u.grad_fn.got, u.grad_fn is v.grad_fn))

    class ReturnsList(Function):
        @staticmethod
        def forward(ctx, t):
            return [t * 2]

    record(lambda: [type(r).__name__ for r in ReturnsList.apply(p)] + [ReturnsList.apply(p)[0].requires_grad])

    # inputs returned as they came, dirty inputs
    class Same(Function):
        @staticmethod
        def forward(ctx, t):
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 2

    q = leaf(1., 2.)
    s = Same.apply(q)
    record(lambda: (s is q, s._base is q, node(s), T.autograd.grad(s.sum(), q)))
    record(lambda: s.mul_(2))
    record(lambda: (Same.apply(T.ones(2)).requires_grad, Same.apply(T.ones(2))._base is not None))

    class AddOne(Function):
        @staticmethod
        def forward(ctx, t):
            t.add_(1)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, g):
            return g

    h = q * 1
    record(lambda: (AddOne.apply(h) is h, node(h), h._version, T.autograd.grad(h.sum(), q)))
    plain = T.tensor([4., 5.])
    record(lambda: (AddOne.apply(plain) is plain, plain.requires_grad, plain.tolist()))
    record(lambda: AddOne.apply(q))
    record(lambda: q.tolist())
    base = q * 1
    view = base[:1]
    record(lambda: (AddOne.apply(view) is view, node(view), node(base), base.tolist(),
                    T.autograd.grad(base.sum(), q)))

    class DirtyNotReturned(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.mark_dirty(t)
            return t * 2

    record(lambda: DirtyNotReturned.apply(q * 1))

    # saved tensors
    class SaveOut(Function):
        @staticmethod
        def forward(ctx, t, mode):
            r = t.exp()
            if mode == "int":
                ctx.save_for_backward(3)
            elif mode == "none":
                ctx.save_for_backward(None, t)
            else:
                ctx.save_for_backward(r)
            ctx.in_forward = len(ctx.saved_tensors)
            return r

        @staticmethod
        def backward(ctx, g):
            return g * ctx.saved_tensors[-1], None

    w = leaf(0., 1.)
    r = SaveOut.apply(w, "out")
    r.add_(1)
    record(lambda: r.sum().backward())
    record(lambda: SaveOut.apply(w, "int"))
    record(lambda: (SaveOut.apply(w, "none").grad_fn.saved_tensors[0], SaveOut.apply(w, "none").grad_fn.in_forward))
    r2 = SaveOut.apply(w, "out")
    s2 = r2.sum()
    record(lambda: s2.backward())
    record(lambda: r2.grad_fn.saved_tensors)
    record(lambda: s2.backward())
    h2 = w * 1
    r3 = SaveOut.apply(h2, "none")
    h2.mul_(3)
    record(lambda: r3.sum().backward())
    r4 = Same.apply(w * 1)
    s4 = r4.sum()
    record(lambda: (s4.backward(retain_graph=False), w.grad.tolist()))
    record(lambda: (s4.backward(), w.grad.tolist()))

    # a backward that gives None to another custom Function's output: that one still runs, with zeros
    class GivesNone(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return None

    class Records(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            out.append("Records.backward got " + repr(g.tolist()))
            return g

    record(lambda: GivesNone.apply(Records.apply(w)).sum().backward())

    # once_differentiable
    class Square(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            out.append(f"Square.backward grad mode {T.is_grad_enabled()} {g.requires_grad}")
            return 2 * t * g

    sq = leaf(1.5, -2.)
    record(lambda: T.autograd.grad(Square.apply(sq).sum(), sq, create_graph=True)[0].requires_grad)
    g2 = T.autograd.grad((Square.apply(sq) ** 2).sum(), sq, create_graph=True)[0]
    record(lambda: (g2.tolist(), node(g2), edges(g2)))
    record(lambda: g2.sum().backward())

    # hooks, names, retain_grad, repr of the node's class
    class Double(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    d = Double.apply(sq)
    d.retain_grad()
    d.grad_fn.register_hook(lambda gi, go: out.append(f"hook {[x.tolist() for x in gi]} {[x.tolist() for x in go]}"))
    d.grad_fn.register_prehook(lambda go: out.append(f"prehook {[x.tolist() for x in go]}"))
    record(lambda: ((d * d).sum().backward(), d.grad.tolist(), sq.grad.tolist()))
    record(lambda: (d.grad_fn.name(), d.grad_fn.metadata, str(type(d.grad_fn)), type(d.grad_fn).__module__))
    record(lambda: (str(Function), repr(Double.apply).split(" of ")[0], Double._backward_cls.__name__))

    # misuse
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

    class NoForward(Function):
        pass

    record(lambda: NoBackward.apply(sq).sum().backward())
    record(lambda: NoForward.apply(sq))
    record(lambda: Double()(sq))

    # gradcheck and gradgradcheck on custom Functions
    dd = T.tensor([.3, .7], dtype=T.float64, requires_grad=True)
    record(lambda: (T.autograd.gradcheck(Cube.apply, (dd,)), T.autograd.gradgradcheck(Cube.apply, (dd,))))

    class Wrong(Function):
        @staticmethod
        def forward(ctx, t):
            return t ** 2

        @staticmethod
        def backward(ctx, g):
            return g

    record(lambda: T.autograd.gradcheck(Wrong.apply, (dd,), raise_exception=False))
    record(lambda: T.autograd.gradcheck(Wrong.apply, (dd,)))


def _grad_of(T: Any, cls: Any, t: Any) -> Any:
    cls.apply(t, 2.0).sum().backward()
    return t.grad
