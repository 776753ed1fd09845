"""PyTorch's type promotion, checked against cases whose results PyTorch documents."""

from __future__ import annotations

import pytest

from gradcli.engine import api

T = api.TORCH


@pytest.mark.parametrize("left, right, expected", [
    (("int32", (2,)), ("int64", ()), "int32"),       # a 0-dim tensor of the same category loses
    (("int32", (2,)), 2.5, "float32"),                # a float scalar lifts ints to the default dtype
    (("bool", (2,)), 1, "int64"),
    (("bool", (2,)), True, "bool"),
    (("float32", (2,)), ("float64", ()), "float32"),
    (("int64", (2,)), ("float64", ()), "float64"),    # a 0-dim tensor of a higher category wins
    (("float32", (2,)), ("float64", (2,)), "float64"),
    (("int32", (2,)), ("int64", (2,)), "int64"),
    (("int64", ()), 1.5, "float32"),
    (("float64", ()), 1, "float64"),
])
def test_add_result_dtype(left, right, expected):
    def make(spec):
        if not isinstance(spec, tuple):
            return spec
        name, shape = spec
        return T["ones"](shape, dtype=T[name])
    assert (make(left) + make(right)).dtype is T[expected]


def test_true_division_of_ints_is_float():
    assert (T["tensor"]([1, 2]) / 2).dtype is T["float32"]


def test_default_dtype_follows_set_default_dtype():
    try:
        T["set_default_dtype"](T["float64"])
        assert T["tensor"]([1.5]).dtype is T["float64"]
        assert (T["tensor"]([1, 2]) * 0.5).dtype is T["float64"]
    finally:
        T["set_default_dtype"](T["float32"])


def test_dtype_objects_print_and_alias():
    assert repr(T["float"]) == "torch.float32" and T["float"] is T["float32"]
    assert T["long"] is T["int64"] and T["int"] is T["int32"] and T["double"] is T["float64"]
