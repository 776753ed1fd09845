"""What generated programs are made of: the prelude every program starts from, and the values
(plausible and implausible) that arguments and literals are drawn from.

Everything here is plain text: the generators paste these fragments into programs.
"""

from __future__ import annotations

import random

# Every generated program starts with these bindings, so that most names a generator picks exist
# and most calls get as far as the op's own checks.  Small sizes keep a program at a few ms.
PRELUDE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
import math
x = torch.randn(3, 4, requires_grad=True)
y = torch.randn(3, 4)
v = torch.arange(4.0, requires_grad=True)
m = torch.eye(4)
s = torch.tensor(2.5, requires_grad=True)
i = torch.tensor([0, 2, 1])
b = torch.tensor([True, False, True])
e = torch.zeros(0)
h = torch.ones(2, 3, dtype=torch.float64)
w = torch.ones(1).expand(300, 400)
n = 3
f = 0.5
t = 'abc'
L = [1, 2, 3]
d = {'a': 1, 'b': 2}
"""

TENSOR_NAMES = ("x", "y", "v", "m", "s", "i", "b", "e", "h", "w")
PLAIN_NAMES = ("n", "f", "t", "L", "d")
MODULE_NAMES = ("torch", "F", "nn", "math")

# Builtins a script may call (language.md §3); a few names that are not defined on purpose.
BUILTINS = ("print", "len", "range", "list", "tuple", "dict", "set", "sorted", "sum", "max", "min", "abs",
            "int", "float", "str", "bool", "repr", "isinstance", "type", "iter", "next", "map", "zip",
            "enumerate", "filter", "reversed", "round", "divmod", "pow", "any", "all", "hash", "id",
            "getattr", "hasattr", "format", "chr", "ord", "callable", "vars", "dir", "slice", "object",
            "Exception", "ValueError", "TypeError", "RuntimeError", "StopIteration", "KeyError",
            "IndexError", "ZeroDivisionError", "ArithmeticError", "AssertionError", "NotImplemented",
            "grad", "undefined_name", "__import__", "eval", "exec", "open", "globals", "locals")

# Tensor attributes and methods worth calling with no or few arguments.
TENSOR_ATTRS = ("shape", "T", "mT", "grad", "grad_fn", "requires_grad", "is_leaf", "data", "dtype",
                "ndim", "device", "layout", "real", "size", "dim", "numel", "item", "tolist", "float",
                "double", "long", "int", "bool", "half", "detach", "clone", "contiguous", "backward",
                "retain_grad", "retains_grad", "register_hook", "zero_", "fill_", "requires_grad_",
                "numpy", "stride", "storage_offset", "is_contiguous", "element_size", "nelement",
                "_version", "_base", "__class__", "__dict__", "__len__", "__getitem__", "next_functions",
                "name", "_saved_self")

# Numbers: mostly ordinary, sometimes the ones that break kernels (PyTorch checks them first).
PLAIN_INTS = ("0", "1", "2", "3", "-1", "4", "-2")
WILD_INTS = ("2**63", "-2**63-1", "2**62", "2**31", "-2**31", "10**6", "10**20", "-10**9", "9" * 25,
             "0x7fffffffffffffff", "2**64", "1 << 40", "-0", "True", "False")
PLAIN_FLOATS = ("0.5", "1.0", "-1.5", "2.0", "1e-3", "3.25")
WILD_FLOATS = ("float('nan')", "float('inf')", "-float('inf')", "1e308", "-1e308", "1e-320", "5e-324",
               "1e300", "math.nan", "math.inf", "-0.0", "1.5e19", "9.3e18")
PLAIN_STRINGS = ("'a'", "'abc'", "''", "'mean'", "'sum'", "'none'", "'cpu'", "'tanh'", "'x'", "\"{}\"")
WILD_STRINGS = ("'\\x00'", "'é'", "'\\U0001F600'", "'a' * 100", "'{0}{1}'", "'%s%s'", "'{:>30}'",
                "f'{x}'", "f'{n!r:>8}'", "f'{f:.3e}'", "f'{t=}'", "'cuda'", "'meta'", "'float32'",
                "'\\n\\t'", "r'\\d'", "'''a\nb'''", "f'{L[0]:{n}}'")

DTYPES = ("torch.float32", "torch.float64", "torch.int64", "torch.int32", "torch.bool", "torch.float16",
          "torch.uint8", "torch.int8", "torch.long", "torch.float", "torch.double", "torch.cfloat")


def plain_number(rng: random.Random) -> str:
    return rng.choice(PLAIN_INTS if rng.random() < 0.6 else PLAIN_FLOATS)


def wild_number(rng: random.Random) -> str:
    return rng.choice(WILD_INTS if rng.random() < 0.55 else WILD_FLOATS)


def number(rng: random.Random, wild: float = 0.2) -> str:
    return wild_number(rng) if rng.random() < wild else plain_number(rng)


def string(rng: random.Random, wild: float = 0.3) -> str:
    return rng.choice(WILD_STRINGS if rng.random() < wild else PLAIN_STRINGS)


def nested_list(rng: random.Random, depth: int) -> str:
    """A nested list literal ``depth`` deep (tensor's 66-deep case lives here when depth is large)."""
    inner = number(rng, 0.1)
    return "[" * depth + inner + "]" * depth


def tensor_literal(rng: random.Random) -> str:
    """A small tensor made inline, sometimes an odd one."""
    choices = (
        "torch.randn(2, 3)", "torch.ones(4)", "torch.zeros(3, 4, requires_grad=True)", "torch.tensor(1.0)",
        "torch.tensor([1, 2, 3])", "torch.arange(6).reshape(2, 3)", "torch.rand(4, 4)", "torch.tensor([])",
        "x[0]", "x.T", "x[:, 1:]", "x.detach()", "m[::2]", "torch.tensor([[1., 2.], [3., 4.]])",
        "torch.ones(2, 1, 3)", "v.unsqueeze(0)", "torch.full((2, 2), 7)", "w[0]", "x.expand(2, 3, 4)",
        "torch.tensor([float('nan'), 1.0])", "torch.tensor([1 + 0.5, -2.0])",
    )
    return rng.choice(choices)
