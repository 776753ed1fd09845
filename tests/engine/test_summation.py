"""sum and mean in PyTorch's CPU order (kernels/summation.py), without torch.

Expected bit patterns were computed once with torch 2.13 (CPU, two threads).
NumPy's pairwise sum gives different last bits for most of them.
"""

from __future__ import annotations

import numpy as np

from gradcli.engine import api
from gradcli.engine.kernels.summation import torch_sum

T = api.TORCH


def _u32(t) -> list[int]:
    return np.ascontiguousarray(t._data).reshape(-1).view(np.uint32).tolist()


def test_seeded_randn_sums():
    T["manual_seed"](0)
    x = T["randn"](8)
    assert _u32(x.sum()) == [3217908076]          # -1.6045355796813965
    T["manual_seed"](0)
    y = T["randn"](100, 37)
    assert _u32(y.sum()) == [3248500936]          # -20.023818969726562
    assert _u32(y.mean()) == [3148961236]
    assert _u32(y.sum(0)[:3]) == [3243986544, 1085002059, 1091911564]
    assert _u32(y.sum(1)[:3]) == [3191067512, 1089746876, 3216379681]
    assert _u32(y.t()[:, ::2].sum()) == [1095843790]
    means = y.double().mean(1)[:3]
    assert np.ascontiguousarray(means._data).view(np.uint64).tolist() == [
        13795494128954121133, 4596599498720935936, 13809072869654318993]


def test_parallel_split_of_a_big_sum():
    # over 32768 elements PyTorch's two threads each sum half, then the halves are added
    T["manual_seed"](0)
    z = T["randn"](100000)
    assert _u32(z.sum()) == [3279195984]          # -244.559814453125 (one thread: ...981)


def test_zero_sums_are_positive_and_empty_sums_zero():
    assert np.signbit(torch_sum(np.array([-0.0, -0.0], np.float32))) == np.False_
    assert torch_sum(np.zeros((0, 3), np.float64), (0,)).tolist() == [0.0, 0.0, 0.0]
    assert torch_sum(np.zeros((3, 0), np.float32), (1,), keepdims=True).shape == (3, 1)


def test_order_is_sequential_within_a_vector():
    # 8 floats are one AVX2 vector: PyTorch adds its lanes one by one, NumPy pairs them
    a = np.array([1e8, 1, -1e8, 1, 1, 1, 1, 1], np.float32)
    assert torch_sum(a) == np.float32(5.0)
    assert np.sum(a) != np.float32(5.0)


def test_losses_and_var_seeded():
    F = api.SUBMODULES["nn.functional"]
    T["manual_seed"](0)
    x = T["randn"](40, 7)
    t = T["randint"](0, 7, (40,))
    w = T["rand"](7)
    assert _u32(F["nll_loss"](x, t)) == [1042896632]               # its own 8-level cascade
    assert _u32(F["nll_loss"](x, t, weight=w)) == [1040434214]
    assert _u32(x.var()) == [1063292970]                           # two-pass in double
    assert _u32(x.std()) == [1064289363]
    assert _u32(x.var(1)[:3]) == [1058961219, 1067845907, 1067193998]
    assert _u32(F["mse_loss"](x, x.flip(0))) == [1069970108]


def test_contiguous_rows_take_the_general_order():
    # a contiguous row's sum has its own short path (_contiguous_plan); it must add in the
    # order of the general 2-D loop for every length: each count of cascade levels, rests and
    # leftover vectors, for both vector widths
    from gradcli.engine.kernels import summation as S
    rng = np.random.default_rng(7)
    lengths = list(range(8, 700)) + [1023, 1024, 1025, 4095, 4096, 4100, 65535, 65536, 65541,
                                     262143, 1048577, 4194320]
    for dt in (np.float32, np.float64):
        isz = np.dtype(dt).itemsize
        lanes = S.VECTOR_BYTES // isz
        for n in lengths:
            flat = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dt)
            fast = S._inner_sum(flat)
            general = S._loop2d(flat[:, None], isz, 0, isz, lanes)[0]
            assert fast.tobytes() == general.tobytes(), (dt, n)
