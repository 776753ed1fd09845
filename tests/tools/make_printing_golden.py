#!/usr/bin/env python
"""Regenerate tests/data/printing_golden.json with real PyTorch.

Every case is a tensor built in PyTorch under given print options and default
dtype. The file stores its inputs (dtype, shape, exact values, autograd facts,
options) and ``repr(tensor)``, or the type and message of the exception the
repr raises. tests/engine/test_printing.py replays the cases without PyTorch.

Run from the repository root with a Python that has torch==2.13.0 (CPU) installed:

    python tests/tools/make_printing_golden.py

Format: one case per line; keys equal to their default are left out (see
``add``). Ints and bools are JSON ints/bools. A float is a JSON int when it is
integral, not -0.0 and below 2**53 in size, else ``float.hex`` text without
trailing zeros (``"0x1.8p+0"``, ``"-0x0p+0"``, ``"nan"``, ``"inf"``). Large
summarized tensors store only the elements torch shows, as
``{"fill": v, "at": [[flat_index, v], ...]}``; every other element is a trap
value that would change the output if the printer read it.
"""

from __future__ import annotations

import json
import math
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import reference_torch  # noqa: E402,F401  (before torch, as every generator)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "data" / "printing_golden.json"

DTYPES = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.bool: "bool",
}
DEFAULT_OPTIONS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, profile=None, sci_mode=None)

CASES: list[dict[str, Any]] = []


# ---------------------------------------------------------------- encoding


def encode_float(v: float) -> int | str:
    if math.isfinite(v) and v == int(v) and abs(v) < 2**53 and math.copysign(1.0, v) > 0:
        return int(v)
    # float.hex always writes 13 digits; trailing zeros are dropped to stay small.
    text = float.hex(v)
    if "p" in text:
        mantissa, exponent = text.split("p")
        text = mantissa.rstrip("0").rstrip(".") + "p" + exponent
    return text


def encode_value(v: Any, dtype: str) -> Any:
    if dtype.startswith("float"):
        return encode_float(float(v))
    if dtype == "bool":
        return bool(v)
    return int(v)


def encode_option(v: Any) -> Any:
    # JSON has no inf/nan: floats are tagged and stored as hex.
    if isinstance(v, float):
        return {"float": float.hex(v)}
    return v


def shown_mask(shape: tuple[int, ...], edge: int) -> torch.Tensor:
    """True for the elements a summarized print shows (edge > 0)."""
    mask = torch.ones(shape, dtype=torch.bool)
    for axis, size in enumerate(shape):
        if size > 2 * edge:
            keep = torch.zeros(size, dtype=torch.bool)
            keep[:edge] = True
            keep[size - edge :] = True
            view = [1] * len(shape)
            view[axis] = size
            mask &= keep.reshape(view)
    return mask


def trap_value(t: torch.Tensor) -> Any:
    if t.dtype == torch.bool:
        # A False among all-True edges would widen every column.
        return False
    if t.dtype.is_floating_point:
        return -1.0e30
    return -(10**15) if t.dtype == torch.int64 else -(2**31)


# ---------------------------------------------------------------- recording


def apply_options(options: dict[str, Any]) -> None:
    torch.set_printoptions(**DEFAULT_OPTIONS)
    if options:
        torch.set_printoptions(**options)


def add(
    name: str,
    make: Callable[[], torch.Tensor],
    options: dict[str, Any] | None = None,
    default_dtype: torch.dtype = torch.float32,
    layout: str = "c",
) -> None:
    """Build the tensor with ``make`` under these settings and record torch's repr."""
    options = options or {}
    torch.set_default_dtype(default_dtype)
    apply_options({})
    t = make()
    values = t.detach()
    shape = tuple(values.shape)
    dtype = DTYPES[values.dtype]
    flat = values.reshape(-1).clone()

    apply_options(options)
    torch.set_default_dtype(default_dtype)
    threshold = torch._tensor_str.PRINT_OPTS.threshold
    edge = torch._tensor_str.PRINT_OPTS.edgeitems
    sparse = (
        isinstance(threshold, (int, float))
        and values.numel() > threshold
        and type(edge) is int
        and edge > 0
        and values.numel() > 200
    )
    if sparse:
        original_repr = repr(t)
        mask = shown_mask(shape, edge).reshape(-1)
        fill = trap_value(values)
        trapped = flat.clone()
        trapped[~mask] = fill
        trapped = trapped.reshape(shape)
        if t.requires_grad:
            # In place under no_grad keeps the grad_fn (or the leaf flag).
            with torch.no_grad():
                t.copy_(trapped)
        else:
            t = trapped
        kept = torch.nonzero(mask).reshape(-1).tolist()
        encoded: Any = {
            "fill": encode_value(fill, dtype),
            "at": [[i, encode_value(flat[i].item(), dtype)] for i in kept],
        }
    else:
        encoded = [encode_value(v, dtype) for v in flat.tolist()]

    # Keys left out take their defaults: layout "c", options {}, default_dtype
    # "float32", requires_grad false, grad_fn null.
    case: dict[str, Any] = {"name": name, "dtype": dtype, "shape": list(shape), "values": encoded}
    if layout != "c":
        case["layout"] = layout
    if options:
        case["options"] = {k: encode_option(v) for k, v in options.items()}
    if default_dtype != torch.float32:
        case["default_dtype"] = DTYPES[default_dtype]
    if t.requires_grad:
        case["requires_grad"] = True
    if t.grad_fn is not None:
        case["grad_fn"] = type(t.grad_fn).__name__
    try:
        case["expected"] = repr(t)
    except Exception as exc:  # the printer must fail the same way
        case["error"] = {"type": type(exc).__name__, "message": str(exc)}
    finally:
        apply_options({})
        torch.set_default_dtype(torch.float32)
    if sparse:
        # Sanity: the trap really is invisible to torch.
        assert original_repr == case.get("expected"), name
    CASES.append(case)


def leaf(t: torch.Tensor) -> torch.Tensor:
    return t.clone().requires_grad_(True)


def node(t: torch.Tensor, op: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    return op(leaf(t))


def custom_node(t: torch.Tensor, class_name: str) -> torch.Tensor:
    """A result whose grad_fn is ``<class_name>Backward``, any length we like."""

    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        return g

    fn = type(
        class_name,
        (torch.autograd.Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )
    return fn.apply(leaf(t))


def T(*args: Any, **kwargs: Any) -> Callable[[], torch.Tensor]:
    return lambda: torch.tensor(*args, **kwargs)


# ---------------------------------------------------------------- cases

nan, inf = math.nan, math.inf
GEN = torch.Generator().manual_seed(2013)


def randn(*shape: int, scale: float = 1.0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return (torch.randn(shape, generator=GEN, dtype=torch.float64) * scale).to(dtype)


def randint(lo: int, hi: int, *shape: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.randint(lo, hi, shape, generator=GEN, dtype=dtype)


def conformance_corpus() -> None:
    """The tensors that the printing cases of the conformance corpus (see .ci/run) print."""
    add("corpus/bool_eye", lambda: torch.eye(3) > 0)
    add("corpus/bool_50x50", lambda: torch.arange(2500).reshape(50, 50) % 3 == 0)
    add("corpus/bool_vec", T([True, False, True]))
    add("corpus/bool_col", T([[True], [False]]))
    add("corpus/bool_0d", T(False))
    add("corpus/bool_ones", lambda: torch.ones(2, 2, dtype=torch.bool))
    add("corpus/align_fixed", T([[-1.5, 100.0], [2.25, -30.0]]))
    add("corpus/align_int", T([[1, -200], [30, 4]]))
    add("corpus/align_sci", T([[0.001, 1.0], [2.0, 3.0]]))
    add("corpus/align_sci_neg", T([[1e-5, 1.0], [-2.0, 3e5]]))
    add("corpus/align_nonfinite", T([[1.0, nan], [-inf, 2.5]]))
    add("corpus/int_float_sign", T([-5.0, 5.0]))
    add("corpus/int_widths", T([-100, 5, 1000]))
    for dd in (torch.float64, torch.float32):
        tag = "f64" if dd == torch.float64 else "f32"
        add(f"corpus/default_{tag}/plain", T([1.5, 2.0]), default_dtype=dd)
        add(f"corpus/default_{tag}/ones", lambda: torch.ones(2), default_dtype=dd)
        add(f"corpus/default_{tag}/f32", T([1.5], dtype=torch.float32), default_dtype=dd)
        add(f"corpus/default_{tag}/f64", T([1.5], dtype=torch.float64), default_dtype=dd)
        add(f"corpus/default_{tag}/ints", T([1, 2]), default_dtype=dd)
        add(f"corpus/default_{tag}/empty", lambda: torch.zeros(0), default_dtype=dd)
        add(f"corpus/default_{tag}/empty_f32", lambda: torch.zeros(0, dtype=torch.float32), default_dtype=dd)
    add("corpus/arange_2x3", lambda: torch.arange(6.0).reshape(2, 3))
    add("corpus/quarters_3d", lambda: torch.arange(12.0).reshape(2, 3, 2) / 4)
    add("corpus/int_4d", lambda: torch.arange(16).reshape(2, 2, 2, 2))
    add("corpus/ones_4d", lambda: torch.ones(1, 1, 1, 1))
    add("corpus/ones_2x1x3", lambda: torch.ones(2, 1, 3))
    add("corpus/shifted_4d", lambda: torch.arange(24.0).reshape(1, 2, 3, 4) - 10)
    for shape in [(0,), (0, 3), (2, 0), (0, 2, 2)]:
        add(f"corpus/empty{shape}", lambda s=shape: torch.zeros(s))
    add("corpus/empty_int64", lambda: torch.zeros(0, dtype=torch.int64))
    add("corpus/empty_float64", lambda: torch.zeros(0, dtype=torch.float64))
    add("corpus/empty_requires_grad", lambda: torch.ones(0, requires_grad=True))
    add("corpus/float32_basic", T([1.5, 2.25, -3.125]))
    add("corpus/tenths", T([0.1, 0.2, 0.3]))
    add("corpus/one_two_half", T([1.0, 2.5]))
    add("corpus/123_456", T([123.456, 0.5]))
    add("corpus/mixed_widths", T([-1.5, 10.25, 100.125]))
    add("corpus/sci_2x2", T([[0.5, -0.25], [1.75, 1000.5]]))
    add("corpus/thirds", T([1 / 3, 2 / 3]))
    add("corpus/f64", T([1.5, 2.25], dtype=torch.float64))
    add("corpus/f64_int", T([1.0, 2.0], dtype=torch.float64))
    add("corpus/f64_tenths", lambda: torch.tensor([0.1, 0.2], dtype=torch.float64) * 3)
    add("corpus/f64_ones", lambda: torch.ones(2, 2, dtype=torch.float64))
    add("corpus/f64_sci", T([1e-8, 1.0], dtype=torch.float64))
    add("corpus/mean_grad", lambda: node(torch.tensor([1.0, 2.0, 3.0]), lambda x: x.mean()))
    add("corpus/sum_keepdim_grad", lambda: node(torch.tensor([1.0, 2.0, 3.0]), lambda x: x.sum(0, keepdim=True)))
    add("corpus/int32", T([1, -2, 3], dtype=torch.int32))
    add("corpus/int32_arange", lambda: torch.arange(4, dtype=torch.int32))
    add("corpus/int32_2d", T([[5, 6], [7, 80]], dtype=torch.int32))
    add("corpus/int32_trunc", lambda: torch.tensor([1.7, -2.7]).int())
    add("corpus/int64_arange10", lambda: torch.arange(10))
    add("corpus/int64_2d", T([[1, -2], [300, 4]]))
    add("corpus/int64_big", T([10**12, -5]))
    add("corpus/int64_zeros", lambda: torch.zeros(3, dtype=torch.long))
    add("corpus/int_summary", lambda: torch.arange(-1000, 1000))
    add("corpus/int_summary_2d", lambda: torch.arange(3000).reshape(3, 1000) * 1000000)
    add("corpus/int_2_62", T([2**62, -(2**62)]))
    add("corpus/int32_summary", lambda: torch.arange(1100, dtype=torch.int32))
    add("corpus/integral_123", T([1.0, 2.0, 3.0]))
    add("corpus/integral_signs", T([-1.0, 0.0, 100.0]))
    add("corpus/integral_1000", lambda: torch.ones(3) * 1000)
    add("corpus/integral_1e8", T([1e8, 1.0]))
    add("corpus/integral_123456789", T([123456789.0, 1.0]))
    add("corpus/integral_2000", T([1.0, 2000.0]))
    add("corpus/zeros_2x3", lambda: torch.zeros(2, 3))
    add("corpus/full_-7", lambda: torch.full((2, 2), -7.0))
    add("corpus/wrap_1.5", lambda: torch.arange(30.0) * 1.5)
    add("corpus/wrap_int40", lambda: torch.arange(40))
    add("corpus/wrap_2x15", lambda: torch.arange(30.0).reshape(2, 15) / 7)
    add("corpus/wrap_thousands", lambda: torch.arange(20.0) * 1000)
    add("corpus/wrap_bool", T([True, False] * 15))
    add("corpus/wrap_f64", lambda: (torch.arange(21, dtype=torch.float64) - 10) / 10)
    add("corpus/suffix_leaf_2x3", lambda: torch.ones(2, 3, requires_grad=True))
    add("corpus/suffix_mul_2x3", lambda: node(torch.ones(2, 3), lambda x: x * 0.5))
    add("corpus/suffix_3d_f64", lambda: node(torch.ones(2, 2, 2, dtype=torch.float64), lambda x: x + 1))
    add("corpus/suffix_wrap_25", lambda: node(torch.arange(25.0), lambda x: x * 1.5))
    add("corpus/suffix_summary", lambda: node(torch.arange(1500.0), lambda x: x * 2))
    add("corpus/max_values", lambda: node(torch.tensor([[1.0, 5.0], [4.0, 2.0]]), lambda x: torch.max(x, 1).values))
    add("corpus/indices_col", T([[1], [2]]))
    add("corpus/neg_zero", T([-0.0, 0.0]))
    add("corpus/neg_zero_0d", T(-0.0))
    add("corpus/neg_zero_fixed", T([-0.0, 1.5]))
    add("corpus/neg_zero_sci", T([-0.0, 1e-5, 1.0]))
    add("corpus/neg_zeros", lambda: -torch.zeros(3))
    add("corpus/neg_zero_times", lambda: torch.tensor([0.0, 2.0]) * -1)
    add("corpus/nonfinite_mix", T([nan, 1.5, inf, -inf]))
    add("corpus/inf_int", T([inf, 1.0, 2.0]))
    add("corpus/nans", T([nan, nan]))
    add("corpus/infs", T([inf, -inf]))
    add("corpus/nan_0d", T(nan))
    add("corpus/minf_0d", T(-inf))
    add("corpus/div_zero", lambda: torch.tensor([1.0, 0.0, -1.0]) / 0)
    add("corpus/sci_nan", T([0.0, 1e10, nan]))
    add("corpus/log", lambda: torch.log(torch.tensor([0.0, 1.0, -1.0])))
    add("corpus/lw40_thirds", lambda: torch.arange(20.0) / 3, {"linewidth": 40})
    add("corpus/lw40_int", lambda: torch.arange(12).reshape(2, 6) * 1000, {"linewidth": 40})
    add("corpus/lw200", lambda: torch.arange(40.0) / 3, {"linewidth": 200})
    add("corpus/lw80", lambda: torch.arange(40.0) / 3, {"linewidth": 80})
    x = torch.tensor([1 / 3, 2 / 3, 10.0])
    add("corpus/precision_default", lambda: x)
    add("corpus/precision_2", lambda: x, {"precision": 2})
    add("corpus/precision_2_0d", T(3.14159), {"precision": 2})
    add("corpus/precision_2_sci", T([1e-5, 1.0]), {"precision": 2})
    add("corpus/precision_8", lambda: x, {"precision": 8})
    add("corpus/precision_8_f64", T([1 / 3], dtype=torch.float64), {"precision": 8})
    add("corpus/precision_0", lambda: x, {"precision": 0})
    add("corpus/profile_short", lambda: torch.arange(1200.0) / 7, {"profile": "short"})
    add("corpus/profile_short_thirds", T([1 / 3, 2 / 3]), {"profile": "short"})
    add("corpus/profile_full", lambda: torch.arange(1001), {"profile": "full"})
    add("corpus/profile_default", lambda: torch.arange(1200.0) / 7, {"profile": "default"})
    for sci in (False, True, None):
        add(f"corpus/sci_{sci}_mixed", T([1e-5, 1.0, 1000.0]), {"sci_mode": sci})
        add(f"corpus/sci_{sci}_plain", T([1.5, 2.5]), {"sci_mode": sci})
    add("corpus/sci_True_ints", T([1.0, 2.0]), {"sci_mode": True})
    add("corpus/sci_True_0d", T(0.5), {"sci_mode": True})
    add("corpus/threshold5_6", lambda: torch.arange(6), {"threshold": 5})
    add("corpus/threshold5_5", lambda: torch.arange(5), {"threshold": 5})
    add("corpus/threshold5_3x4", lambda: torch.arange(12.0).reshape(3, 4), {"threshold": 5})
    add("corpus/edge1_10", lambda: torch.arange(10), {"threshold": 5, "edgeitems": 1})
    add("corpus/edge1_3x3x3", lambda: torch.arange(27).reshape(3, 3, 3), {"threshold": 5, "edgeitems": 1})
    add("corpus/edge3_1001", lambda: torch.arange(1001), {"threshold": 1000, "edgeitems": 3})
    add("corpus/edge5_1001", lambda: torch.arange(1001), {"threshold": 1000, "edgeitems": 5})
    for i, vals in enumerate(
        [[1e-5, 1.0, 1000.0], [0.001, 10000.0], [0.5, 2000.5], [1.5, 1234.5], [0.0001, 0.001],
         [0.00012, 0.5], [[1e-3, 1.0], [5e4, -2.0]], [123456.7, -0.5]]
    ):
        add(f"corpus/sci_mixed_{i}", T(vals))
    for i, vals in enumerate(
        [1e-6, 123456789.0, [[1e-6, 2e-6], [3e-6, 4e-6]], [[1e9, 2.0], [3.0, 4.0]], [1e5, 1e5 + 1],
         [99999.0, 100000.0], [0.0001, 0.1], [-1e-5, 1e-5]]
    ):
        add(f"corpus/sci_shapes_{i}", T(vals))
    add("corpus/summary_int2000", lambda: torch.arange(2000))
    add("corpus/summary_1001", lambda: torch.arange(1001.0))
    add("corpus/summary_1000_full", lambda: torch.arange(1000.0))
    add("corpus/summary_linspace", lambda: torch.linspace(0, 1, 1500))
    add("corpus/summary_int_neg", lambda: torch.arange(1200) - 600)
    add("corpus/summary_bool", lambda: torch.ones(5000, dtype=torch.bool))
    add("corpus/summary_100x30", lambda: torch.arange(3000.0).reshape(100, 30))
    add("corpus/summary_2x1001", lambda: torch.arange(2002).reshape(2, 1001))
    add("corpus/summary_1001x2", lambda: torch.arange(2002).reshape(1001, 2))
    add("corpus/summary_thirds_40x40", lambda: torch.ones(40, 40) / 3)
    add("corpus/summary_4x20x30", lambda: torch.arange(2400).reshape(4, 20, 30))
    add("corpus/summary_11x10x10", lambda: torch.arange(1100.0).reshape(11, 10, 10) * 0.5)
    for i, vals in enumerate(
        [[1e-10, 2e-10], [1e10, 3e10], [123456789.0], [1e-30, -1e-30], [3e38, -3e38], [1e-45]]
    ):
        add(f"corpus/tiny_huge_{i}", T(vals))
    add("corpus/f64_1e300", T([1e300], dtype=torch.float64))
    add("corpus/f64_denormal", T([5e-324, 1.0], dtype=torch.float64))
    add("corpus/0d_1e20", T(1e20))
    for i, v in enumerate([3.5, 2.0, -0.125, 1e-10, 12345678.9]):
        add(f"corpus/zero_dim_{i}", T(v))
    add("corpus/zero_dim_int", T(7))
    add("corpus/zero_dim_f64", T(2.5, dtype=torch.float64))
    add("corpus/zero_dim_int32", T(3, dtype=torch.int32))
    add("corpus/suffix_leaf", T([1.0, 2.0], requires_grad=True))
    add("corpus/suffix_mul", lambda: node(torch.tensor([1.0, 2.0]), lambda x: x * 2))
    add("corpus/suffix_sum", lambda: node(torch.tensor([1.0, 2.0]), lambda x: x.sum()))
    add("corpus/suffix_f64_leaf", T([1.0, 2.0], dtype=torch.float64, requires_grad=True))
    add("corpus/suffix_f64_mul", lambda: node(torch.tensor([1.0, 2.0], dtype=torch.float64), lambda x: x * 2))
    add("corpus/suffix_f64_mean", lambda: node(torch.tensor([1.0, 2.0], dtype=torch.float64), lambda x: x.mean()))
    add("corpus/suffix_0d_leaf", T(3.0, requires_grad=True))
    add("corpus/suffix_zeros_leaf", lambda: torch.zeros(2, 2, requires_grad=True))


def shapes_and_dtypes() -> None:
    """Random values in every dtype and rank 0..4."""
    shapes = [(), (1,), (5,), (2, 3), (3, 1), (1, 4), (2, 3, 4), (2, 1, 2, 3), (3, 2, 2, 2)]
    for shape in shapes:
        for dt in (torch.float32, torch.float64):
            for scale in (1.0, 1e3, 1e-3, 1e9):
                add(f"rank/{DTYPES[dt]}/{shape}/x{scale:g}", lambda s=shape, d=dt, k=scale: randn(*s, scale=k, dtype=d))
        add(f"rank/int64/{shape}", lambda s=shape: randint(-50, 1000, *s))
        add(f"rank/int32/{shape}", lambda s=shape: randint(-9, 9, *s, dtype=torch.int32))
        add(f"rank/bool/{shape}", lambda s=shape: randint(0, 2, *s) > 0)
        add(f"rank/bool_true/{shape}", lambda s=shape: torch.ones(s, dtype=torch.bool))
        add(f"rank/integral/{shape}", lambda s=shape: randint(-20, 20, *s).float())
    for shape in [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0, 1, 2)]:
        for dt in DTYPES:
            add(f"empty/{DTYPES[dt]}/{shape}", lambda s=shape, d=dt: torch.zeros(s, dtype=d))
            add(f"empty/{DTYPES[dt]}/{shape}/default64", lambda s=shape, d=dt: torch.zeros(s, dtype=d),
                default_dtype=torch.float64)
        add(f"empty/leaf/{shape}", lambda s=shape: torch.zeros(s, requires_grad=True))
        add(f"empty/grad_fn/{shape}", lambda s=shape: node(torch.zeros(s, dtype=torch.float64), lambda x: x * 2))
        add(f"empty/edge0/{shape}", lambda s=shape: torch.zeros(s), {"edgeitems": 0})
    for layout in ("fortran", "strided"):
        add(f"layout/{layout}/2x3", lambda: randn(2, 3), layout=layout)
        add(f"layout/{layout}/3x4x5", lambda: randn(3, 4, 5, scale=100), layout=layout)
        add(f"layout/{layout}/int", lambda: randint(-5, 500, 4, 6), layout=layout)
        add(f"layout/{layout}/summary", lambda: torch.arange(3000.0).reshape(30, 100) / 3, layout=layout)
        add(f"layout/{layout}/bool", lambda: randint(0, 2, 3, 3) > 0, layout=layout)


def modes() -> None:
    """Int mode, fixed point and scientific, and what switches between them."""
    add("mode/int_large", T([1e7, 2.0]))
    add("mode/int_1e8_edge", T([1e8, 1.0]))
    add("mode/int_over_1e8", T([100000008.0, 1.0]))
    add("mode/ratio_1000", T([1.0, 1000.0]))
    add("mode/max_1e8", T([1e8]))
    add("mode/max_1e8_pair", T([5e7, 1e8]))
    add("mode/max_1e8_f64", T([1e8, 2e5], dtype=torch.float64))
    add("mode/min_1e-4_alone_f64", T([1e-4], dtype=torch.float64))
    add("mode/min_1e-4_alone_f32", T([1e-4]))
    add("mode/ratio_1000.5", T([1.0, 1000.5]))
    add("mode/ratio_just_over", T([0.001, 1.0000001]))
    add("mode/ratio_f32_rounding", T([0.1, 100.0]))
    add("mode/min_1e-4", T([1e-4, 0.05]))
    add("mode/min_1e-4_f64", T([1e-4, 0.05], dtype=torch.float64))
    add("mode/below_1e-4", T([9.99e-5, 0.05]))
    add("mode/round_up_width", T([9.99996, 1.0]))
    add("mode/round_up_neg", T([-9.99996, 1.5]))
    add("mode/tiny_negative_fixed", T([-0.00001, 0.01]))
    add("mode/all_neg", T([-1.5, -2.25]))
    add("mode/sci_exp3", T([1e-100, 1.0], dtype=torch.float64))
    add("mode/sci_exp3_neg", T([-1e-100, 1e100, 3.0], dtype=torch.float64))
    add("mode/sci_exp3_mixed", T([[-1e200, 1e-5], [2.0, -3e-7]], dtype=torch.float64))
    add("mode/sci_round_exp", T([9.99996e99, 1.0], dtype=torch.float64))
    add("mode/f64_max", T([1.7976931348623157e308, -1.0], dtype=torch.float64))
    add("mode/f64_min_normal", T([2.2250738585072014e-308], dtype=torch.float64))
    add("mode/f32_max", lambda: torch.tensor([torch.finfo(torch.float32).max, torch.finfo(torch.float32).tiny]))
    add("mode/f32_subnormals", lambda: torch.tensor([1e-45, 1e-40, -1e-44]))
    add("mode/zeros_only_sci", lambda: torch.zeros(3), {"sci_mode": True})
    add("mode/nan_only_sci", T([nan, -inf]), {"sci_mode": True})
    add("mode/ints_sci_forced", T([1.0, 2.0, -300.0]), {"sci_mode": True})
    add("mode/int_mode_nofix", T([1e20, -3.0]), {"sci_mode": False})
    add("mode/fixed_forced_tiny", T([1e-7, 1.0]), {"sci_mode": False})
    add("mode/fixed_forced_tiny_neg", T([-1e-7, 1.0]), {"sci_mode": False})
    add("mode/int_tensor_sci", T([1, 2]), {"sci_mode": True, "precision": 1})
    add("mode/bool_sci", T([True]), {"sci_mode": True})
    add("mode/half_ints", T([0.5, 1.5, 2.5, -0.5]))
    add("mode/round_half_even", T([0.125, 0.375, 2.5], dtype=torch.float64), {"precision": 2})
    add("mode/precision0_fixed", T([0.5, 1.5, 2.5, -0.5]), {"precision": 0})
    add("mode/precision0_sci", T([1e-5, 5.5, 1000.0]), {"precision": 0})
    add("mode/precision0_int_mode", T([1.0, 2.0]), {"precision": 0})
    add("mode/precision15", T([1 / 3, 2.0], dtype=torch.float64), {"precision": 15})
    add("mode/precision20_f32", T([0.1, 3.0]), {"precision": 20})
    add("mode/precision1_sci", T([1e-9, -2.0]), {"precision": 1})
    add("mode/nonfinite_fixed", T([nan, inf, 0.25, -inf]))
    add("mode/nonfinite_sci", T([nan, inf, 1e-5, -inf]))
    add("mode/nonfinite_int", T([nan, inf, 12.0, -inf]))
    add("mode/neg_zero_int", T([-0.0, 7.0]))
    add("mode/neg_zero_sci_forced", T([-0.0, 7.0]), {"sci_mode": True})
    add("mode/int64_extremes", T([2**63 - 1, -(2**63)]))
    add("mode/int32_extremes", T([2**31 - 1, -(2**31)], dtype=torch.int32))
    add("mode/int64_0d_min", T(-(2**63)))
    add("mode/int_ones", lambda: torch.ones(3, dtype=torch.int64))
    add("mode/int_neg1", T([-1, -1]))


def summarization() -> None:
    """Above-threshold tensors, every rank, several edgeitems."""
    add("sum/1d_1001_int", lambda: torch.arange(1001))
    add("sum/1d_sci_edges", lambda: torch.cat([torch.tensor([1e-8]), torch.ones(2000), torch.tensor([5.0])]))
    add("sum/1d_inner_ignored", lambda: torch.cat([torch.ones(3), torch.full((2000,), 1e30), torch.ones(3)]))
    add("sum/2d_tall", lambda: randn(500, 3, scale=10))
    add("sum/2d_wide", lambda: randn(3, 500, scale=10))
    add("sum/2d_big", lambda: randn(100, 100))
    add("sum/3d", lambda: randn(10, 11, 12, scale=1e5))
    add("sum/3d_small_first", lambda: randn(2, 30, 30))
    add("sum/4d", lambda: torch.arange(1008).reshape(7, 2, 8, 9))
    add("sum/4d_f", lambda: randn(7, 1, 12, 13))
    add("sum/bool_3d", lambda: randint(0, 2, 10, 10, 11) > 0)
    add("sum/int32", lambda: randint(-(2**31), 2**31 - 1, 40, 40, dtype=torch.int32))
    for e in (1, 2, 4, 5):
        add(f"sum/edge{e}/1d", lambda: torch.arange(30.0) / 7, {"threshold": 10, "edgeitems": e})
        add(f"sum/edge{e}/2d", lambda: torch.arange(120).reshape(10, 12), {"threshold": 10, "edgeitems": e})
        add(f"sum/edge{e}/3d", lambda: randn(9, 4, 10), {"threshold": 10, "edgeitems": e})
        add(f"sum/edge{e}/4d", lambda: randn(2, 9, 2, 11, scale=1e-6), {"threshold": 10, "edgeitems": e})
    add("sum/edge0/1d", lambda: torch.arange(30.0), {"threshold": 10, "edgeitems": 0})
    add("sum/edge0/2d", lambda: torch.arange(30.0).reshape(5, 6), {"threshold": 10, "edgeitems": 0})
    add("sum/edge0/0d", T(2.5), {"threshold": 0, "edgeitems": 0})
    add("sum/edge0/unsummarized", T([1.5, 2.0]), {"edgeitems": 0})
    add("sum/edge0/grad", lambda: torch.ones(20, requires_grad=True), {"threshold": 10, "edgeitems": 0})
    add("sum/edge_neg1/1d", lambda: torch.arange(10.0), {"threshold": 3, "edgeitems": -1})
    add("sum/edge_neg2/1d", lambda: torch.arange(10), {"threshold": 3, "edgeitems": -2})
    add("sum/edge_neg1/2d", lambda: torch.arange(10.0).reshape(2, 5), {"threshold": 3, "edgeitems": -1})
    add("sum/edge_true/2d", lambda: torch.arange(20.0).reshape(4, 5), {"threshold": 3, "edgeitems": True})
    add("sum/threshold0_0d", T(1.5), {"threshold": 0})
    add("sum/threshold0_small", T([1.0, 2.5, 3.0]), {"threshold": 0})
    add("sum/threshold_float", lambda: torch.arange(10), {"threshold": 9.5})
    add("sum/threshold_neg_inf", lambda: torch.arange(20.0).reshape(2, 10), {"threshold": -inf})
    add("sum/threshold_nan", lambda: torch.arange(20.0), {"threshold": nan})
    add("sum/threshold_inf", lambda: torch.arange(1500) * 3, {"threshold": inf})
    add("sum/exactly_threshold", lambda: torch.arange(1000))


def wrapping_and_suffixes() -> None:
    """Line width, and suffixes that do or do not fit on the last line."""
    for lw in (1, 10, 20, 39, 40, 41, 79, 81, 120):
        add(f"wrap/lw{lw}/1d", lambda: torch.arange(24.0) / 3, {"linewidth": lw})
        add(f"wrap/lw{lw}/3d", lambda: torch.arange(36).reshape(2, 3, 6) - 20, {"linewidth": lw})
        add(f"wrap/lw{lw}/grad", lambda: node(torch.arange(12.0).reshape(3, 4), lambda x: x * 3),
            {"linewidth": lw})
        add(f"wrap/lw{lw}/0d_suffix", lambda: node(torch.tensor(2.0, dtype=torch.float64), lambda x: x * 3),
            {"linewidth": lw})
    add("wrap/lw0", lambda: torch.arange(5.0) / 3, {"linewidth": 0})
    add("wrap/lw_negative", lambda: torch.arange(5.0) / 3, {"linewidth": -5})
    add("wrap/lw_float", lambda: torch.arange(25.0) / 3, {"linewidth": 50.5})
    add("wrap/summary_lw", lambda: randn(50, 50), {"linewidth": 30})
    # Last lines of increasing length against the 80 column limit.
    for n in range(1, 9):
        add(f"suffix/row{n}/mul", lambda k=n: node(torch.arange(8.0 + k) / 3, lambda x: x * 1))
        add(f"suffix/row{n}/leaf_f64", lambda k=n: torch.arange(8.0 + k, dtype=torch.float64).div(3).requires_grad_())
        add(f"suffix/row{n}/f64_grad", lambda k=n: node(torch.arange(8.0 + k, dtype=torch.float64) / 3, lambda x: x * 1))
    for name in ("Short", "AVeryLongCustomFunctionName", "X" * 60, "Y" * 75, "Z" * 90):
        for shape in ((), (3,), (2, 2), (9,)):
            add(f"suffix/custom/{len(name)}/{shape}", lambda s=shape, nm=name: custom_node(torch.ones(s) / 3, nm))
            add(f"suffix/custom_f64/{len(name)}/{shape}",
                lambda s=shape, nm=name: custom_node(torch.ones(s, dtype=torch.float64) / 3, nm))
        add(f"suffix/custom/{len(name)}/lw40", lambda nm=name: custom_node(torch.arange(9.0) / 3, nm), {"linewidth": 40})
    add("suffix/bce", lambda: node(torch.tensor([0.5, -1.0, 2.0]), lambda x: F.binary_cross_entropy_with_logits(
        x, torch.tensor([1.0, 0.0, 1.0]), reduction="none")))
    add("suffix/edge0_all", lambda: node(torch.arange(20.0, dtype=torch.float64), lambda x: x * 1),
        {"edgeitems": 0, "threshold": 5})
    add("suffix/edge0_all_long", lambda: custom_node(torch.arange(20.0, dtype=torch.float64), "Q" * 40),
        {"edgeitems": 0, "threshold": 5})
    add("suffix/empty_all", lambda: node(torch.zeros(0, 4, dtype=torch.float64), lambda x: x * 1))
    add("suffix/empty_long", lambda: custom_node(torch.zeros(3, 0, dtype=torch.float64), "W" * 70))
    for dd in (torch.float32, torch.float64):
        for dt in (torch.float32, torch.float64):
            tag = f"{DTYPES[dd]}/{DTYPES[dt]}"
            add(f"suffix/combo/{tag}/plain", lambda d=dt: torch.tensor([1.5, -2.0], dtype=d), default_dtype=dd)
            add(f"suffix/combo/{tag}/leaf", lambda d=dt: torch.tensor([1.5, -2.0], dtype=d, requires_grad=True),
                default_dtype=dd)
            add(f"suffix/combo/{tag}/node", lambda d=dt: node(torch.tensor([1.5, -2.0], dtype=d), lambda x: x.exp()),
                default_dtype=dd)
            add(f"suffix/combo/{tag}/0d_node", lambda d=dt: node(torch.tensor([1.5, -2.0], dtype=d), lambda x: x.sum()),
                default_dtype=dd)
        for dt in (torch.int64, torch.int32, torch.bool):
            add(f"suffix/combo/{DTYPES[dd]}/{DTYPES[dt]}", lambda d=dt: torch.ones(2, dtype=d), default_dtype=dd)
            add(f"suffix/combo/{DTYPES[dd]}/{DTYPES[dt]}_0d", lambda d=dt: torch.ones((), dtype=d), default_dtype=dd)


def options() -> None:
    """Profiles, overrides, and option values torch only rejects when printing."""
    for profile in ("default", "short", "full", "bogus"):
        add(f"opt/profile_{profile}/vec", lambda: torch.tensor([1 / 3, 2e-5, 7.0]), {"profile": profile})
        add(f"opt/profile_{profile}/big", lambda: torch.arange(1010.0).reshape(101, 10) / 8, {"profile": profile})
    add("opt/profile_short_precision6", lambda: torch.tensor([1 / 3]), {"profile": "short", "precision": 6})
    add("opt/profile_full_threshold", lambda: torch.arange(30), {"profile": "full", "threshold": 10})
    add("opt/profile_short_edge4", lambda: torch.arange(30), {"profile": "short", "threshold": 10, "edgeitems": 4})
    add("opt/everything", lambda: randn(5, 7, scale=1e4), {"precision": 3, "threshold": 20, "edgeitems": 2,
                                                            "linewidth": 50, "sci_mode": True})
    vec = lambda: torch.tensor([1.5, 2.0])  # noqa: E731
    ints = lambda: torch.tensor([1, 2])  # noqa: E731
    add("bad/precision_-1", vec, {"precision": -1})
    add("bad/precision_-1_int_mode", lambda: torch.tensor([1.0, 2.0]), {"precision": -1})
    add("bad/precision_-1_ints", ints, {"precision": -1})
    add("bad/precision_str", vec, {"precision": "3"})
    add("bad/precision_float", vec, {"precision": 1.5})
    add("bad/precision_true", vec, {"precision": True})
    add("bad/precision_-1_sci_forced_ints", lambda: torch.tensor([1.0, 2.0]), {"precision": -1, "sci_mode": True})
    add("bad/threshold_str", vec, {"threshold": "3"})
    add("bad/linewidth_str", vec, {"linewidth": "80"})
    add("bad/linewidth_str_0d", T(1.5), {"linewidth": "80"})
    add("bad/linewidth_str_0d_suffix", T(1.5, requires_grad=True), {"linewidth": "80"})
    add("bad/linewidth_inf", vec, {"linewidth": inf})
    add("bad/edgeitems_str", lambda: torch.arange(10.0), {"threshold": 3, "edgeitems": "2"})
    add("bad/edgeitems_float_1d", lambda: torch.arange(10.0), {"threshold": 3, "edgeitems": 1.5})
    add("bad/edgeitems_float_2d", lambda: torch.arange(20.0).reshape(4, 5), {"threshold": 3, "edgeitems": 1.5})
    add("bad/edgeitems_float_wide", lambda: torch.arange(20.0).reshape(2, 10), {"threshold": 3, "edgeitems": 1.5})
    add("bad/edgeitems_float_fits", lambda: torch.arange(20.0).reshape(4, 5), {"threshold": 3, "edgeitems": 2.5})
    add("bad/edgeitems_float_zero", lambda: torch.arange(10.0), {"threshold": 3, "edgeitems": 0.0})
    add("bad/edgeitems_float_unsummarized", lambda: torch.arange(10.0), {"edgeitems": 1.5})
    add("bad/sci_mode_str", vec, {"sci_mode": "yes"})
    add("bad/sci_mode_zero", vec, {"sci_mode": 0})


def main() -> None:
    conformance_corpus()
    shapes_and_dtypes()
    modes()
    summarization()
    wrapping_and_suffixes()
    options()
    names = [c["name"] for c in CASES]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit(f"duplicate case names: {sorted(duplicates)}")
    # One case per line: compact, and a regenerated file diffs case by case.
    lines = [json.dumps(case, allow_nan=False) for case in CASES]
    OUT.write_text(
        '{"torch_version": ' + json.dumps(torch.__version__) + ', "cases": [\n'
        + ",\n".join(lines) + "\n]}\n"
    )
    errors = sum("error" in c for c in CASES)
    print(f"wrote {len(CASES)} cases ({errors} raising) to {OUT}")


if __name__ == "__main__":
    main()
