"""kernels/float32_math.py: a 0-dim value takes the scalar way, with the bits of the array way."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.kernels.float32_math import wide

FUNCTIONS = (np.exp, np.expm1, np.log1p, np.tanh, np.sin, np.cos, np.tan, np.log, np.log2, np.log10,
             np.arcsin, np.arccos, np.arctan)


def values() -> np.ndarray:
    rng = np.random.default_rng(7)
    special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3e38, -3e38, 88.7, 89.0, -104.0, 1.0, -1.0]
    return np.concatenate([(rng.standard_normal(3000) * 10).astype(np.float32), np.array(special, np.float32)])


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_0_dim_value_gives_the_bits_of_the_same_value_in_an_array(fn) -> None:
    evaluate = wide(fn)
    data = values()
    with np.errstate(all="ignore"):
        whole = evaluate(data)
        for i, v in enumerate(data):
            one = evaluate(np.array(v))
            assert type(one) is np.float32
            assert one.tobytes() == whole[i].tobytes(), (fn.__name__, v)
