"""How the equations write the ops that are not pointwise: ``mean(z)``, ``w @ x``, ``x.view(2, 3)``."""

from __future__ import annotations

from typing import Any, Callable

Args = dict


def _call(name: str, *keys: str) -> Callable[[Args], str]:
    """``name(t, key=value, ...)`` for the tensor in ``self`` and the ``keys`` the op was given."""
    def show(b: Args) -> str:
        extra = [f"{k}={_literal(b[k])}" for k in keys if b.get(k) is not None and b.get(k) is not False]
        return f"{name}({', '.join([b['self'], *extra])})"
    return show


def _literal(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 1:
        return str(value[0])
    return str(value)


def _method(name: str, *keys: str) -> Callable[[Args], str]:
    def show(b: Args) -> str:
        parts = []
        for k in keys:
            v = b.get(k)
            if isinstance(v, (tuple, list)):
                parts.extend(str(x) for x in v)
            elif v is not None:
                parts.append(str(v))
        return f"{_atom(b['self'])}.{name}({', '.join(parts)})"
    return show


def _atom(text: str) -> str:
    """``text`` in parentheses unless it reads as one piece (a name, a call, a subscript)."""
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in " +-·/^@":
            return f"({text})"
    return text


def _infix(symbol: str, x: str, y: str) -> Callable[[Args], str]:
    return lambda b: f"{_atom(b[x])} {symbol} {_atom(b[y])}"


def _subscript(b: Args, text: str) -> str:
    dim = b["dim"]
    return f"{_atom(b['self'])}[{'' if dim == 0 else ':, ' * dim if dim > 0 else '..., '}{text}]"


def _show_slice(b: Args) -> str:
    start, end, step = b.get("start"), b.get("end"), b.get("step", 1)
    text = f"{'' if start in (None, 0) else start}:{'' if end is None or end >= 2 ** 62 else end}"
    return _subscript(b, text + ("" if step == 1 else f":{step}"))


def _show_list(name: str) -> Callable[[Args], str]:
    return lambda b: f"{name}([{', '.join(b['tensors'])}]" + (f", dim={b['dim']})" if b.get("dim", 0) != 0 else ")")


def _show_norm(b: Args) -> str:
    if b.get("p", 2) in ("fro", 2, 2.0) and b.get("dim") is None:
        return f"‖{b['self']}‖"
    return _call("norm", "p", "dim", "keepdim")(b)


def _show_loss(name: str) -> Callable[[Args], str]:
    def show(b: Args) -> str:
        reduction = {0: "none", 1: None, 2: "sum"}.get(b.get("reduction", 1))
        text = ", ".join([b["self"], b.get("target", "…")])
        return f"{name}({text}" + (f", reduction='{reduction}')" if reduction else ")")
    return show


def _show_addmm(b: Args) -> str:
    beta, alpha = b.get("beta", 1), b.get("alpha", 1)
    left = b["self"] if beta == 1 else f"{beta}·{_atom(b['self'])}"
    right = f"{_atom(b['mat1'])} @ {_atom(b['mat2'])}"
    return f"{left} + {right if alpha == 1 else f'{alpha}·({right})'}"
