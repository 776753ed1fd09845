"""Calls of real ops, built from the op table's signatures.

Every op record (``gradcli.engine.dispatch.publish.OPS``) states its PyTorch signatures
(``sum(Tensor input, int[1] dim, bool keepdim=False, *, dtype? dtype=None)``); the hand-written
functions carry the same facts as an ``inspect`` signature.  ``OpCalls`` reads them once and
makes calls in every form the op has (``torch.f(...)``, the bare shorthand ``f(...)``,
``x.f(...)``, ``x.f_(...)``, ``F.f(...)``) with arguments of the declared types most of the time
and, with probability ``wild``, of the wrong type or out of range: what PyTorch's argument parser
and its kernels refuse, never what should reach NumPy.
"""

from __future__ import annotations

import inspect
import random
from dataclasses import dataclass

from values import DTYPES, TENSOR_NAMES, nested_list, number, string, tensor_literal, wild_number


@dataclass(frozen=True)
class Param:
    type: str          # a PyTorch type name: Tensor, Scalar, int, int[], float, bool, str, dtype, ...
    name: str
    required: bool
    kwonly: bool


@dataclass(frozen=True)
class Callee:
    text: str                 # what is called: "torch.sum", "sum", "x.sum", "F.relu"
    params: tuple[Param, ...]  # without self for a method


def _params_of_signature(text: str) -> list[Param]:
    from gradcli.engine.dispatch.signature import REQUIRED, Signature
    sig = Signature(text)
    return [Param(p.base, p.name, p.default is REQUIRED, p.kwonly) for p in sig.params]


def _params_of_callable(fn: object) -> list[Param] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            params.append(Param("any", "*", False, False))
            continue
        annotation = p.annotation if isinstance(p.annotation, str) else "any"
        base = annotation.rstrip("?").replace("Optional[", "").rstrip("]") or "any"
        params.append(Param(base, p.name, p.default is p.empty, p.kind == p.KEYWORD_ONLY))
    return params


def load_callees() -> list[Callee]:
    """Every callable form of every published op (private and backward-only ops left out)."""
    from gradcli.engine import api  # noqa: F401  (installs the op table)
    from gradcli.engine.dispatch.publish import FUNCTIONS, NAMESPACES, OPS
    from gradcli.engine.tensor import Tensor

    callees: list[Callee] = []
    for name, op in OPS.items():
        if name.startswith("_") or name.endswith("_backward"):
            continue
        for sig_text in op.sigs:
            params = _params_of_signature(sig_text)
            if op.function:
                callees.append(Callee(f"torch.{name}", tuple(params)))
                callees.append(Callee(name, tuple(params)))  # the calculator shorthand
            for namespace in op.also_in:
                prefix = "F" if namespace == "nn.functional" else f"torch.{namespace}"
                callees.append(Callee(f"{prefix}.{name}", tuple(params)))
            if op.method and params:
                callees.append(Callee(f"@.{name}", tuple(params[1:])))
                if op.inplace:
                    callees.append(Callee(f"@.{name}_", tuple(params[1:])))
    covered = set(OPS)
    for name, fn in FUNCTIONS.items():
        if name in covered or name.startswith("_"):
            continue
        params = _params_of_callable(fn)
        if params is not None:
            callees.append(Callee(f"torch.{name}", tuple(params)))
            callees.append(Callee(name, tuple(params)))
    for namespace, table in NAMESPACES.items():
        prefix = "F" if namespace == "nn.functional" else f"torch.{namespace}"
        for name, fn in table.items():
            if name.startswith("_"):
                continue
            params = _params_of_callable(fn)
            if params is not None:
                callees.append(Callee(f"{prefix}.{name}", tuple(params)))
    for name in sorted(Tensor.__script_attrs__):
        if name.startswith("_") or name in OPS:
            continue
        attr = getattr(Tensor, name, None)
        if callable(attr) and not isinstance(attr, type):
            params = _params_of_callable(attr)
            if params is not None:
                callees.append(Callee(f"@.{name}", tuple(params[1:])))
    return callees


class OpCalls:
    """Makes call expressions of real ops with plausible and implausible arguments."""

    def __init__(self, callees: list[Callee] | None = None) -> None:
        self.callees = callees if callees is not None else load_callees()

    def call(self, rng: random.Random, wild: float = 0.2) -> str:
        callee = rng.choice(self.callees)
        return self.call_of(callee, rng, wild)

    def call_of(self, callee: Callee, rng: random.Random, wild: float) -> str:
        if callee.text.startswith("@"):
            owner = self.tensor(rng, 0.05 if wild < 0.5 else 0.3)
            head = (owner if owner.isidentifier() else f"({owner})") + callee.text[1:]
        else:
            head = callee.text
        positional: list[str] = []
        keywords: list[str] = []
        params = list(callee.params)
        for index, p in enumerate(params):
            if p.name == "*":
                positional.extend(self.value("any", rng, wild) for _ in range(rng.randrange(3)))
                continue
            if not p.required and rng.random() < 0.6:
                continue  # leave an optional one out
            if p.required and rng.random() < wild * 0.15:
                continue  # a required one missing: the parser's own message
            value = self.value(p.type, rng, wild)
            if p.kwonly or (not p.required and rng.random() < 0.4) or rng.random() < 0.05:
                keywords.append(f"{p.name}={value}")
            elif keywords:
                keywords.append(f"{p.name}={value}")
            else:
                positional.append(value)
        if rng.random() < wild * 0.2:
            positional.append(self.value("any", rng, wild))   # one too many
        if rng.random() < wild * 0.1:
            keywords.append(f"{rng.choice(('bogus', 'dim', 'out', 'dtype', 'axis', 'keepdim'))}="
                            f"{self.value('any', rng, wild)}")
        if rng.random() < 0.03:
            positional.append("grad")  # the shorthand: requires_grad=True where a factory takes it
        return f"{head}({', '.join(positional + keywords)})"

    # ------------------------------------------------------------------ values by type
    def tensor(self, rng: random.Random, wild: float) -> str:
        if rng.random() < wild:
            return self.wrong(rng)
        return rng.choice(TENSOR_NAMES) if rng.random() < 0.7 else tensor_literal(rng)

    def wrong(self, rng: random.Random) -> str:
        """A value of some other type than asked for."""
        return rng.choice((
            "'a'", "None", "1.5", "[1, 2]", "torch.float32", "(2, 3)", "[[1], [2, 3]]", "print", "len",
            "lambda g: 5", "{}", "torch", "F", "x.shape", "(x, 'a')", "[x, 1]", "...", "slice(1)",
            "range(3)", "iter([1])", "object()", "x.grad_fn", "torch.Size([2])", "2**63", "float('nan')",
            nested_list(rng, rng.choice((3, 40, 70))), "[x] * 3", "{'a': x}", "b", "e", "w",
        ))

    def value(self, type_: str, rng: random.Random, wild: float) -> str:
        if rng.random() < wild:
            return self.wild_value(type_, rng)
        if type_ == "Tensor":
            return self.tensor(rng, 0.0)
        if type_ == "Scalar":
            return number(rng, 0.0)
        if type_ == "int":
            return rng.choice(("0", "1", "-1", "2", "3", "1"))
        if type_ in ("int[]", "int[1]"):
            return rng.choice(("(2, 3)", "(3, 4)", "(-1,)", "()", "1", "(0,)", "[1, 0]", "(4,)", "(2, 2)", "0"))
        if type_ == "float":
            return rng.choice(("0.5", "1e-3", "2.0", "0.0", "1"))
        if type_ == "float[]":
            return rng.choice(("(0.5, 0.5)", "[1.0]", "()"))
        if type_ == "bool":
            return rng.choice(("True", "False"))
        if type_ == "str":
            return rng.choice(("'mean'", "'sum'", "'none'", "'tanh'", "'fro'", "'ij'", "'floor'", "'trunc'"))
        if type_ == "Tensor[]":
            return rng.choice(("(x, y)", "[x, x]", "[v]", "(m, m, m)", "[y]", "[x, y, x]"))
        if type_ == "dtype":
            return rng.choice(DTYPES[:6])
        if type_ == "device":
            return rng.choice(("'cpu'", "torch.device('cpu')"))
        return self.value(rng.choice(("Tensor", "Scalar", "int", "int[]", "bool", "str", "dtype")), rng, 0.0)

    def wild_value(self, type_: str, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.35:
            return self.wrong(rng)
        if type_ in ("int", "Scalar", "float", "bool", "any"):
            return wild_number(rng)
        if type_ in ("int[]", "int[1]"):
            return rng.choice(("(2**62,)", "(-5,)", "(10**6, 10**6)", "(1.5,)", "('a',)", "[[1]]",
                               "((1, 2),)", "(2**63,)", "(0, -1)", "(3, 4, 5, 6, 7, 8, 9, 10, 2)",
                               "tuple(range(70))", "(float('nan'),)", "(True,)", "(10**4, 10**4)",
                               "(-2**63-1,)", "x.shape", "torch.Size([3, 4])", "[1, 2.0]"))
        if type_ == "Tensor":
            return rng.choice(("torch.ones(1).expand(10**6)", "x.expand(100, 3, 4)", "torch.tensor(2**62)",
                               "torch.tensor(float('nan'))", "torch.ones(0, 4)", "i.float()",
                               "torch.tensor([1, 2], dtype=torch.bool)", "s.detach()", "x.double()",
                               "torch.arange(10**5)", "v[None, None]", "torch.tensor(True)"))
        if type_ == "Tensor[]":
            return rng.choice(("[]", "[x, 'a']", "x", "[1, 2]", "[x] * 200", "(x, v)", "[[x]]", "(None,)"))
        if type_ == "str":
            return string(rng, 1.0)
        if type_ == "dtype":
            return rng.choice(("'float'", "int", "3", "torch.cfloat", "torch.complex64", "torch.qint8", "float"))
        return self.wrong(rng)
