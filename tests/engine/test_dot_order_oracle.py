"""torch.dot of short float32 vectors adds its products in MKL's order, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_short_float32_dots_match_pytorch(n):
    rng = np.random.default_rng(n)
    for _ in range(300):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        ours = api.TORCH["dot"](api.TORCH["tensor"](a.tolist()), api.TORCH["tensor"](b.tolist()))
        theirs = torch.dot(torch.from_numpy(a), torch.from_numpy(b))
        assert ours._data.tobytes() == theirs.numpy().tobytes(), (a, b)


def test_the_case_np_dot_rounds_differently():
    w, x = [0.4, -0.3, 0.8], [1.0, -2.0, 0.5]
    ours = api.TORCH["dot"](api.TORCH["tensor"](w), api.TORCH["tensor"](x)).item()
    assert ours == torch.dot(torch.tensor(w), torch.tensor(x)).item() == 1.399999976158142


def test_a_sum_of_negative_zeros_is_positive_zero():
    # MKL's running sum starts from +0
    for values in ([-0.0], [-0.0, -0.0], [-0.0, -0.0, -0.0]):
        ones = [1.0] * len(values)
        ours = api.TORCH["dot"](api.TORCH["tensor"](values), api.TORCH["tensor"](ones))
        theirs = torch.dot(torch.tensor(values), torch.tensor(ones))
        assert ours._data.tobytes() == theirs.numpy().tobytes(), values
