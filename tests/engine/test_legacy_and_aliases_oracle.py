"""NumPy-style keyword aliases and the legacy names against live PyTorch.

Skipped unless torch is importable.  Every op that takes ``dim``/``keepdim`` is
called with each combination of the names and their aliases (``axis``,
``keepdims``), as a function and as a method; the recorded cases of
legacy_alias_cases.py are compared live too.
"""

from __future__ import annotations

import itertools

import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402

import legacy_alias_cases as cases  # noqa: E402
from test_legacy_and_aliases import TORCH  # noqa: E402

# (not all/any: their dim=None overload is missing here; nor norm, Python code in PyTorch)
REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "std", "var", "max", "min",
              "count_nonzero"]
DIM_ONLY = ["softmax", "log_softmax", "cumsum", "cumprod", "squeeze", "unsqueeze", "flatten", "select", "unbind"]
KEYWORDS = [{"axis": 1}, {"dim": 1}, {"axis": 1, "keepdims": True}, {"dim": 0, "keepdims": True},
            {"axis": 0, "keepdim": True}, {"dim": 1, "axis": 1}, {"axis": 1, "keepdim": True, "keepdims": False},
            {"keepdims": True}, {"axis": (0, 1)}, {"axis": -1, "dtype": None}]


def _names() -> list[tuple[str, dict]]:
    return [(name, kw) for name in REDUCTIONS for kw in KEYWORDS] + \
           [(name, kw) for name in DIM_ONLY for kw in KEYWORDS[:2] + [KEYWORDS[5]]]


@pytest.mark.parametrize("name, keywords", _names(), ids=lambda v: str(v))
@pytest.mark.parametrize("form", ["function", "method", "positional dim"])
def test_dim_aliases(name: str, keywords: dict, form: str) -> None:
    def call(namespace: object, x: object) -> str:
        kw = dict(keywords)
        try:
            if form == "function":
                return repr(getattr(namespace, name)(x, **kw))
            if form == "method":
                return repr(getattr(x, name)(**kw))
            return repr(getattr(x, name)(0, **{k: v for k, v in kw.items() if k != "dim"}))
        except Exception as e:  # noqa: BLE001 - the outcome is the error
            return f"{type(e).__name__}: {e}"
    if not hasattr(torch, name) or not hasattr(TORCH, name) and form == "function":
        pytest.skip(f"torch.{name} is not a function of both")
    data = [[1.0, 2.0, 5.0], [3.0, 4.0, 0.0]]
    expected = call(torch, torch.tensor(data))
    got = call(TORCH, api.TORCH["tensor"](data))
    if "gradcli does not support" in got or "object has no attribute" in got:
        pytest.skip(got)
    if "received an invalid combination" in expected:
        # the overload list is each op's own (gradcli's lists may lack PyTorch's named-dim overloads)
        assert got.startswith("TypeError: ")
    else:
        assert got == expected


@pytest.mark.parametrize("group, expression", [("aliases", e) for e in cases.ALIASES] +
                         [("legacy", e) for e in cases.LEGACY])
def test_recorded_cases_live(group: str, expression: str) -> None:
    expected = cases.outcome(expression, cases.setup(torch, torch.autograd.Variable))
    got = cases.outcome(expression, cases.setup(TORCH, api.SUBMODULES["autograd"]["Variable"]))
    assert got == expected


def test_typed_classes_check_dtypes_like_pytorch() -> None:
    for (name, cls), value in itertools.product(
            [(n, getattr(torch, n)) for n in ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor",
                                               "BoolTensor", "ByteTensor")],
            [[1, 2], [1.5], [True], [[0, 1]]]):
        ours = api.TORCH[name]
        t = cls(value)
        g = ours(value)
        assert g.tolist() == t.tolist() and repr(g.dtype) == repr(t.dtype)
        assert g.type() == t.type() and isinstance(g, ours)
        assert isinstance(g.double(), ours) == isinstance(t.double(), cls)
