"""NumPy-style keyword aliases, torch.autograd.Variable, the typed tensor classes, Tensor.type.

The expressions of legacy_alias_cases.py run on gradcli's torch namespace and must
give the outcomes tests/tools/make_legacy_alias_expected.py recorded from PyTorch
(tests/data/legacy_alias_expected.json); no torch needed.  The tests below them
state the rules the argument parser follows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gradcli.engine import api
from gradcli.engine.errors import TorchTypeError

import legacy_alias_cases as cases  # tests/engine is on sys.path (pytest rootdir-relative import)

EXPECTED = json.loads((Path(__file__).parents[1] / "data" / "legacy_alias_expected.json").read_text())
T = api.TORCH


class _Module:
    """gradcli's torch as a module-like object (torch.nn.functional, torch.autograd ...)."""

    def __init__(self, members: dict[str, Any]) -> None:
        self.__dict__.update(members)


def gradcli_torch() -> _Module:
    torch = _Module(T)
    for path, members in api.SUBMODULES.items():
        *parents, leaf = path.split(".")
        owner = torch
        for part in parents:
            owner = getattr(owner, part)
        setattr(owner, leaf, _Module(members))
    return torch


TORCH = gradcli_torch()


@pytest.mark.parametrize("group, expression", [(g, e) for g in ("aliases", "legacy") for e in EXPECTED[g]])
def test_outcome_matches_pytorch(group: str, expression: str) -> None:
    names = cases.setup(TORCH, api.SUBMODULES["autograd"]["Variable"])
    assert cases.outcome(expression, names) == EXPECTED[group][expression]


def test_every_case_has_an_expected_outcome() -> None:
    assert set(EXPECTED["aliases"]) == set(cases.ALIASES) and set(EXPECTED["legacy"]) == set(cases.LEGACY)


def _message(fn: Any) -> str:
    with pytest.raises(TorchTypeError) as info:
        fn()
    return str(info.value)


def test_an_alias_beside_its_parameter_is_an_unexpected_keyword() -> None:
    x = T["ones"](2, 3)
    assert x.sum(axis=1, keepdims=True).shape == (2, 1)
    assert _message(lambda: x.sum(0, axis=0)) == "sum() got an unexpected keyword argument 'axis'"
    assert _message(lambda: T["cumsum"](x, dim=0, axis=1)) == "cumsum() got an unexpected keyword argument 'axis'"
    assert T["add"](x1=x, x2=x).tolist() == [[2.0] * 3] * 2
    # one alias gives the value (input: x, a, x1, in that order); PyTorch then names the first
    # keyword that is no parameter's own name, even the alias it used
    assert _message(lambda: T["exp"](a=x, x1=x)) == "exp() got an unexpected keyword argument 'a'"
    assert _message(lambda: T["sum"](x, axis=1, keepdim=True, keepdims=False)) == \
        "sum() got an unexpected keyword argument 'axis'"


def test_hand_written_functions_take_the_aliases_too() -> None:
    x = T["ones"](4, 2)
    assert [p.shape for p in T["chunk"](x, 2, axis=0)] == [(2, 2), (2, 2)]
    assert x.narrow(axis=1, start=0, length=1).shape == (4, 1)
    assert _message(lambda: x.chunk(2, 0, axis=0)) == "chunk() got an unexpected keyword argument 'axis'"


def test_python_level_functions_of_pytorch_take_no_aliases() -> None:
    x = T["ones"](4, 2)
    assert _message(lambda: x.split(1, axis=0)) == "Tensor.split() got an unexpected keyword argument 'axis'"
    assert _message(lambda: T["split"](x, 1, axis=0)) == "split() got an unexpected keyword argument 'axis'"


def test_missing_arguments_are_listed_with_pytorchs_plural() -> None:
    x = T["ones"](2, 3)
    assert _message(lambda: T["transpose"](x, dim1=0)) == \
        'transpose() missing 2 required positional argument: "dim0", "dim1"'
    assert _message(lambda: T["transpose"](x, dim0=0)) == \
        'transpose() missing 1 required positional arguments: "dim1"'
