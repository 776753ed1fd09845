"""The calculator shorthand's bare dtype names that are Tensor methods too (``long``, ``double``, ``half``).

Run through a real Session (the engine, not the language tests' fake): as a value such a
name is the dtype PyTorch has (``zeros(2, dtype=long)``), called it is the method form
(``long(x)``); Python's ``int``, ``float`` and ``bool`` stay Python's.
"""

from __future__ import annotations

import io

from gradcli.engine import api
from gradcli.lang import Session


def run(source: str) -> tuple[str, str]:
    api.reset_global_state(seed=0)
    out, err = io.StringIO(), io.StringIO()
    Session(stdout=out, stderr=err).run_source(source, "<test>")
    return out.getvalue(), err.getvalue()


def test_value_is_the_dtype_and_call_is_the_method_form() -> None:
    out, err = run("import torch\nx = tensor([1.5, -2.5])\n"
                   "print(zeros(2, dtype=long), long, double == torch.float64, long(x), x.to(double).dtype)\n")
    assert err == ""
    assert out == "tensor([0, 0]) torch.int64 True tensor([ 1, -2]) torch.float64\n"


def test_python_types_stay_python_builtins() -> None:
    out, _ = run("x = tensor([2.5])\nprint(int(x), float(x), zeros(1, dtype=int).dtype, zeros(1, dtype=float).dtype)\n")
    assert out == "2 2.5 torch.int64 torch.float64\n"


def test_a_dtype_gradcli_lacks_says_so_both_ways() -> None:
    out, err = run("print(half)\nzeros(2, dtype=half)\n")
    assert out == "torch.float16\n"
    assert "NotImplementedError: gradcli does not support torch.float16 yet" in err
    _, err = run("half(tensor([1.0]))\n")
    assert "NotImplementedError: gradcli does not support Tensor.half yet" in err


def test_torch_dtypes_are_still_not_callable() -> None:
    _, err = run("import torch\ntorch.long(tensor([1.0]))\n")
    assert "TypeError: 'torch.dtype' object is not callable" in err
