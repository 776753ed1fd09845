"""Hot loops rebuilt as Python code (gradcli.lang.compiler.fusion) do what their closures do.

Each script runs twice: with loops left as closures, and with every loop fused before its first
iteration (and after its first or second, for the hand-over); stdout, diagnostics (message,
line, column, caret) and exit code must be the same.  Then the sandbox's direct paths: a
(name, type) let through once is let through for that type only.
"""

from __future__ import annotations

import io

import pytest

from gradcli.engine import api
from gradcli.lang import Session
from gradcli.lang.compiler import fused_runtime, fusion, statements

NEVER = 10 ** 9


def run(text: str, hot: int, monkeypatch: pytest.MonkeyPatch, builtins: dict | None = None) -> tuple:
    monkeypatch.setattr(statements, "HOT_ITERATIONS", hot)
    monkeypatch.setattr(fusion, "STRICT", True)   # a loop that cannot be fused fails the test
    api.reset_global_state(seed=0)
    out, err = io.StringIO(), io.StringIO()
    session = Session(stdout=out, stderr=err)
    session.builtins.update(builtins or {})
    outcome = session.run_source(text, "loop.ag")
    return out.getvalue(), err.getvalue(), outcome.exit_code


def same_when_fused(text: str, monkeypatch: pytest.MonkeyPatch, builtins: dict | None = None) -> tuple:
    closures = run(text, NEVER, monkeypatch, builtins)
    for hot in (0, 1, 2):
        assert run(text, hot, monkeypatch, builtins) == closures, f"fused after {hot} iterations"
    return closures


SCRIPTS = {
    "attribute error": "import torch\nx = torch.ones(3)\nfor i in range(3):\n    y = x * i + x.foo\n",
    "name error": "for i in range(3):\n    print(i, undefined_name)\n",
    "unbound local": "def f():\n    for i in range(3):\n        print(w)\n        w = 1\nf()\n",
    "free variable": "def outer():\n    def inner():\n        for i in range(3):\n            print(v)\n"
                     "    inner()\n    v = 1\nouter()\n",
    "closure cells": "def outer():\n    v = 10\n    def inner():\n        t = 0\n        for i in range(3):\n"
                     "            t += v + i\n        return t\n    return inner()\nprint(outer())\n",
    "class body": "class C:\n    k = 2\n    for i in range(3):\n        k = k + i\n    print(k)\n",
    "global and nonlocal": "g = 0\ndef bump():\n    global g\n    for i in range(3):\n        g += i\nbump()\n"
                           "def counter():\n    n = 0\n    def inc():\n        nonlocal n\n"
                           "        for i in range(3):\n            n += 1\n        return n\n    return inc\n"
                           "print(g, counter()())\n",
    "return from a loop": "def g(n):\n    for i in range(n):\n        if i == 2:\n            return i * 10\n"
                          "    return -1\nprint(g(5), g(1))\n",
    "break continue else": "t = 0\nfor i in range(10):\n    if i % 2:\n        continue\n    if i > 6:\n"
                           "        break\n    t += i\nelse:\n    print('else')\nprint(t)\n"
                           "for i in range(3):\n    for j in range(2):\n        for k in range(2):\n"
                           "            if k:\n                break\n        else:\n            print('never')\n"
                           "    else:\n        print('inner done', i)\n"
                           "for i in range(2):\n    pass\nelse:\n    for j in range(2):\n        print(j)\n        break\n",
    "while": "i = 0\nwhile i < 5:\n    i += 1\n    if i == 3:\n        continue\n    print(i)\nelse:\n    print('done')\n"
             "n = 10\nwhile n:\n    n -= 3 if n > 3 else n\nprint(n)\n"
             "def f():\n    while True:\n        for i in range(5):\n            if i == 3:\n                return i\n"
             "print(f())\n",
    "no_grad": "import torch\na = torch.ones(2, requires_grad=True)\nfor step in range(3):\n"
               "    with torch.no_grad():\n        a -= 0.1 * a\n        b = a * 2\n    c = a * 2\n"
               "print(a, b.requires_grad, c.requires_grad)\n",
    "with suppressing": "class M:\n    def __enter__(self):\n        print('enter')\n        return 5\n"
                        "    def __exit__(self, t, v, tb):\n        print('exit', t, v)\n        return True\n"
                        "for i in range(3):\n    with M() as m:\n        print(m, i)\n        if i == 1:\n"
                        "            raise ValueError('boom')\n        if i == 2:\n            break\nprint('after')\n",
    "with not suppressing": "class M:\n    def __enter__(self):\n        return self\n"
                            "    def __exit__(self, t, v, tb):\n        print('exit', t)\n        return False\n"
                            "for i in range(3):\n    with M():\n        print(undefined_thing)\n",
    "with return": "class M:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n"
                   "        print('exit')\ndef h():\n    for i in range(3):\n        with M():\n            return i\n"
                   "print(h())\n",
    "not a manager": "for i in range(3):\n    with 5:\n        pass\n",
    "unpacking": "for a, b in [[1, 2], [3, 4]]:\n    print(a + b)\nfor a, b in [1]:\n    pass\n",
    "unpacking into variables": "x, y = 0, 1\nfor i, (p, q) in enumerate(zip('ab', 'cd')):\n    x, y = y, x + y\n"
                                "    print(i, p, q, x, y)\nfor i in range(2):\n    try:\n        a, b = 1, 2, 3\n"
                                "    except ValueError as e:\n        print(type(e), repr(e))\n"
                                "import torch\nfor i in range(2):\n    a, b = torch.ones(2, 3).shape\n"
                                "    (a, b), c = [1], 3\n",
    "an iterator without __iter__": "class Gen:\n    def __init__(self):\n        self.n = 0\n    def __next__(self):\n"
                                    "        self.n += 1\n        if self.n > 80:\n            raise StopIteration\n"
                                    "        return self.n\nclass R:\n    def __iter__(self):\n        return Gen()\n"
                                    "t = 0\nfor x in R():\n    t += x\nprint(t)\n",
    "unpacking a 0-d tensor": "import torch\nfor a, b in [torch.tensor(1.0)]:\n    pass\n",
    "operator errors": "for i in range(3):\n    print('a' + i)\n",
    "index error": "for i in range(3):\n    print([1, 2][i * 2])\n",
    "key error": "d = {'a': 1}\nfor k in ['a', 'b']:\n    print(d[k])\n",
    "not iterable": "for x in 5:\n    pass\n",
    "tensor truth": "import torch\nx = torch.tensor([1.0, 2.0])\nfor i in range(2):\n    if x > 1:\n        print('no')\n",
    "truth in a conditional": "import torch\nx = torch.tensor([1.0, 2.0])\nfor i in range(2):\n"
                              "    print(1 if x else 2)\n",
    "truth in and": "import torch\nx = torch.tensor([1.0, 2.0])\nfor i in range(2):\n    print(x and 1)\n",
    "truth in not": "import torch\nx = torch.tensor([1.0, 2.0])\nfor i in range(2):\n    print(not x)\n",
    "truth in a chain": "import torch\nx = torch.tensor([1.0, 2.0])\nfor i in range(2):\n    print(1 < x < 3)\n",
    "f-strings": "for i in range(3):\n    print(f'{i:>4} {i!r} {i=}')\n    print(f'{i:{undefined}}')\n",
    "f-string conversions and specs": "class R:\n    def __repr__(self):\n        print('repr!')\n        return 'R'\n"
                                      "    def __format__(self, spec):\n        return 'fmt' + spec\nr = R()\n"
                                      "for i in range(2):\n    print(f'{r} {r!r} {r:x} {r!r:>5} {r=} {i!a:{i + 2}}')\n"
                                      "    print(f'{r!r:{undefined_spec}}')\n",
    "str.format": "for i in range(3):\n    print('x{}'.format(i), '{0.real}'.format(i))\n"
                  "    print('{0.__class__}'.format(i))\n",
    "calls": "def f(a, b=2, *, c):\n    return a + b\nfor i in range(3):\n    print(f(i, c=1), f(i, 3, c=i))\n"
             "    print(*[i, i], sep='-')\n    print(f(i, d=1))\n",
    "missing argument": "def f(a, b):\n    return a + b\nfor i in range(3):\n    print(f(i))\n",
    "methods": "class A:\n    def __init__(self):\n        self.v = 1\n    def get(self):\n        return self.v\n"
               "a = A()\nfor i in range(3):\n    a.v += 1\n    print(a.get(), a.v)\nA.get = lambda self: 42\n"
               "for i in range(2):\n    print(a.get())\nfor i in range(2):\n    print(a.missing)\n",
    "recursion": "def rec(n):\n    if n == 0:\n        return 0\n    for i in range(1):\n        return rec(n - 1) + 1\n"
                 "print(rec(50))\nprint(rec(5000))\n",
    "subscripts": "import torch\nx = torch.ones(4)\nfor i in range(3):\n    x[i:i+2] += 1\n"
                  "    print(x[::2], x[1:], x[:, None].shape)\nl = [0, 0, 0]\nfor i in range(3):\n    l[i] += i\n"
                  "    l[i] -= 'a'\n",
    "tensor attributes": "import torch\nt = torch.ones(3, requires_grad=True)\nfor i in range(3):\n"
                         "    t.grad = None\n    print(t.grad, t.shape)\nfor i in range(3):\n    t.shape = 5\n",
    "engine warnings once a place": "import torch\nx = torch.ones(3)\nfor i in range(3):\n"
                                    "    y = torch.tensor(x)\n    z = torch.tensor(x) + torch.tensor(x)\nprint(y)\n",
    "grad of a non-leaf": "import torch\nx = torch.ones(2, requires_grad=True)\nfor i in range(3):\n"
                          "    y = x * 2\n    print(y.grad)\n",
    "training": "import torch\nW = torch.randn(3, 3, requires_grad=True)\nfor step in range(3):\n"
                "    loss = (W @ W).pow(2).mean()\n    W.grad = None\n    loss.backward()\n"
                "    with torch.no_grad():\n        W -= 0.01 * W.grad\n    if step % 2 == 0 or step == 2:\n"
                "        print(step, f'{loss.item():.4f}')\n",
    "modules": "import torch\nfrom torch import nn\nm = nn.Linear(2, 1)\nfor i in range(3):\n"
               "    out = m(torch.ones(1, 2))\n    m.foo_attr = i\n    print(m.foo_attr, out.shape)\nprint(m.missing)\n",
    "constants": "for i in range(2):\n    print(2 ** 10 - 3 * 4, 1 / 3, 7 // 2, -2 ** 2, 2 ** -1, 1 << 3, 10 % 3)\n"
                 "print(1 / 0)\n",
    "try inside": "for i in range(3):\n    try:\n        for j in range(3):\n            if j == 1:\n"
                  "                raise ValueError(j)\n    except ValueError as e:\n        print('v', e)\n",
    "comprehensions and lambdas": "for i in range(2):\n    print([j * i for j in range(3)], {j: i for j in range(2)},"
                                  " (lambda q: q * 2)(i))\n",
    "shorthand": "import torch\nx = torch.ones(2)\nfor i in range(3):\n    print(sum(x), mean(x), ones(2, grad))\n"
                 "for i in range(2):\n    print(lgamma(1.0))\n",
    "delete": "for i in range(3):\n    del undefined_x\n",
    "assert": "for i in range(2):\n    assert i < 1, 'too big'\n",
    # function bodies (fused after as many calls)
    "function errors": "def f(x):\n    y = x * 2\n    return y + undefined\nfor i in range(3):\n    try:\n"
                       "        f(i)\n    except NameError as e:\n        print(e)\nf(1)\n",
    "function returns": "class M:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n"
                        "        print('exit')\ndef f(n):\n    with M():\n        if n:\n            return n\n"
                        "    try:\n        return -1\n    finally:\n        print('finally')\n"
                        "print([f(i) for i in range(3)])\ndef g():\n    pass\nprint(g(), g())\n",
    "methods and super": "class A:\n    def __init__(self, v):\n        self.v = v\n    def get(self):\n"
                         "        return self.v\nclass B(A):\n    def __init__(self, v):\n        super().__init__(v * 2)\n"
                         "    def get(self):\n        return super().get() + 1\nprint([B(i).get() for i in range(4)])\n",
    "defaults and closures": "def make(k):\n    def add(x, y=k):\n        return x + y + k\n    return add\n"
                             "fs = [make(i) for i in range(3)]\nprint([f(1) for f in fs], [f(1, 0) for f in fs])\n",
    "a module's forward": "import torch\nfrom torch import nn\nclass Net(nn.Module):\n    def __init__(self):\n"
                          "        super().__init__()\n        self.fc = nn.Linear(2, 1)\n    def forward(self, x):\n"
                          "        return self.fc(x).relu() + self.nothing\nnet = Net()\nfor i in range(3):\n    try:\n"
                          "        net(torch.ones(1, 2))\n    except AttributeError as e:\n        print(e)\n"
                          "net(torch.ones(1, 2))\n",
    "hooks": "import torch\nx = torch.ones(2, requires_grad=True)\ndef hook(g):\n    return g * 2\n"
             "for i in range(3):\n    y = (x * x).sum()\n    h = x.register_hook(hook)\n    y.backward()\n    h.remove()\n"
             "print(x.grad)\n",
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_fused_loop_does_what_its_closures_do(name, monkeypatch):
    same_when_fused(SCRIPTS[name], monkeypatch)


def test_ctrl_c_in_a_fused_loop_names_the_statement(monkeypatch):
    def stop() -> None:
        raise KeyboardInterrupt
    text = "n = 0\nwhile True:\n    n = n + 1\n    if n == 5:\n        stop()\n"
    out, err, code = same_when_fused(text, monkeypatch, {"stop": stop})
    assert (err, code) == ("loop.ag:5:9: KeyboardInterrupt\n    stop()\n", 130)


def test_a_hot_loop_is_fused_and_runs_on_from_where_it_was(monkeypatch):
    made = []
    real = fusion.fuse_loop
    monkeypatch.setattr(fusion, "fuse_loop", lambda loop: made.append(loop) or real(loop))
    monkeypatch.setattr(statements, "HOT_ITERATIONS", 50)
    out = io.StringIO()
    Session(stdout=out).run_source("t = 0\nfor i in range(120):\n    t += i\nprint(t, i)\n", "hot.ag")
    assert len(made) == 1 and out.getvalue() == "7140 119\n"


def test_a_short_loop_stays_closures(monkeypatch):
    made = []
    monkeypatch.setattr(fusion, "fuse_loop", lambda loop: made.append(loop))
    monkeypatch.setattr(statements, "HOT_ITERATIONS", 50)
    Session(stdout=io.StringIO()).run_source("for i in range(49):\n    pass\n", "short.ag")
    assert made == []


# ---------------------------------------------------------------- the sandbox's direct paths
class Whitelisted:
    """An engine-like class that lets a script read ``v``."""
    __script_attrs__ = frozenset({"v"})
    v = 1


class Unlisted:
    """Has a ``v`` too, but lets a script read nothing."""
    v = 2


class Derived(Whitelisted):
    """Inherits the whitelist."""


class Hiding(Whitelisted):
    """A subclass whose own whitelist leaves ``v`` out."""
    __script_attrs__ = frozenset()


@pytest.mark.parametrize("last", [Unlisted, Hiding])
def test_an_attribute_read_directly_for_one_type_is_not_read_for_another(last, monkeypatch):
    objects = {"a": Whitelisted(), "b": last(), "c": Derived()}
    text = "for o in [a, c, a, a, b]:\n    print(o.v)\n"
    out, err, code = same_when_fused(text, monkeypatch, objects)
    assert out == "1\n1\n1\n1\n" and f"AttributeError: '{last.__name__}' object has no attribute 'v'" in err
    assert {Whitelisted, Derived} <= fused_runtime.DIRECT_READS["v"] and last not in fused_runtime.DIRECT_READS["v"]


def test_script_classes_and_hidden_names_never_take_the_direct_path(monkeypatch):
    text = ("class S:\n    def __init__(self):\n        self.w = 1\nfor i in range(3):\n    s = S()\n    print(s.w)\n"
            "for i in range(2):\n    print((1).__class__)\n")
    out, err, _ = same_when_fused(text, monkeypatch)
    assert "AttributeError: 'int' object has no attribute '__class__'" in err
    assert not any(getattr(cls, "__module__", "") == "__main__" for types in fused_runtime.DIRECT_READS.values()
                   for cls in types)
    assert "__class__" not in fused_runtime.DIRECT_READS


def test_an_attribute_written_directly_for_one_type_is_not_written_for_another(monkeypatch):
    text = ("import torch\nt = torch.ones(2, requires_grad=True)\nitems = [t, t, [1]]\nfor o in items:\n"
            "    o.grad = None\n")
    out, err, code = same_when_fused(text, monkeypatch)
    assert "AttributeError: 'list' object has no attribute 'grad'" in err
    assert list not in fused_runtime.DIRECT_WRITES["grad"]


def test_a_member_a_script_class_gains_is_seen_by_fused_reads(monkeypatch):
    text = ("class A:\n    pass\na = A()\nfor i in range(4):\n    if i == 2:\n        A.f = lambda self: 7\n"
            "    if i >= 2:\n        print(a.f())\n    else:\n        print(hasattr(a, 'f'))\n")
    out, _, _ = same_when_fused(text, monkeypatch)
    assert out == "False\nFalse\n7\n7\n"


# ---------------------------------------------------------------- constant folding
def _compiled_expression(text: str):
    from gradcli.lang.compiler import RunContext
    from gradcli.lang.compiler import Compiler
    from gradcli.lang.errors import Source
    from gradcli.lang.syntax import parse
    context = RunContext(globals={}, builtins={}, import_module=None, import_name=None, echo=None)
    expression_statement = parse(text + "\n").children[0].children[0]
    return Compiler(Source(text, "c.ag"), context).expr(expression_statement.children[0])


def _cpython_folds(text: str) -> bool:
    import dis
    return [op.opname for op in dis.get_instructions(compile(text, "c", "eval"))] == [
        "RESUME", "LOAD_CONST", "RETURN_VALUE"]


@pytest.mark.parametrize("text", ["2 ** 10 - 3 * 4", "1 / 3", "-2 ** 2", "2 ** -1", "1 << 3", "7 // 2 + 10 % 3",
                                  "2.5 * 4", "True + 1", "2 ** 64", "2 ** 127", "1 << 100", "1 << 200", "1 << -1",
                                  "1e308 * 10", "1 / 0", "5 % 0", "2 ** 1000", "3 * 2 ** 100", "2.0 ** 10000",
                                  "(2 ** 64) * (2 ** 64)", "(2 ** 64) * (2 ** 65)", "-0.0 * 1", "0 ** -1"])
def test_number_literals_are_folded_where_cpython_folds_them(text):
    compiled = _compiled_expression(text)
    assert hasattr(compiled, "constant") == _cpython_folds(text)
    if hasattr(compiled, "constant"):
        assert repr(compiled.constant) == repr(eval(compile(text, "c", "eval")))


def test_innermost_span_finds_what_it_finds_in_the_closures(monkeypatch):
    from gradcli.lang.runtime import innermost_span
    seen = []

    def where(*values):
        span = innermost_span()
        seen.append(None if span is None else (span.line, span.column, span.end_line, span.end_column))
        return values[0] if values else None
    text = ("class M:\n    def __enter__(self):\n        where()\n    def __exit__(self, *a):\n        where()\n"
            "t = 0\nfor i in range(3):\n    t += where(i) * 2\n    with M():\n        t = t + where(1)\n"
            "    if where(t):\n        where()\n    else:\n        pass\n    x = [where(j) for j in range(2)]\n"
            "else:\n    where()\nwhile where(t) > 100:\n    t -= 1\n")
    runs = []
    for hot in (NEVER, 0, 1):
        seen.clear()
        same = run(text, hot, monkeypatch, {"where": where})
        runs.append((same, list(seen)))
    assert runs[0] == runs[1] == runs[2] and len(runs[0][1]) > 20
