"""PyTorch as the reference outputs were made, for the oracle tests: MKL on its COMPATIBLE code path.

tests/conftest.py sets ``MKL_CBWR=COMPATIBLE`` (tests/tools/reference_torch.py) before any test module
imports torch.  Whether the torch in this process really runs that path -- the variable may have been
set to something else, or torch imported before -- shows in its square roots (MKL's, not correctly
rounded, and starting from the CPU's ``rsqrtps``, which is the reference AMD CPU's only on such a CPU):
``is_reference`` compares them with those recorded in tests/data/vml_sqrt_bits.json.
``evaluate`` runs expressions on the reference torch: in this process when it is the reference, else in
a subprocess with the variable set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "vml_sqrt_bits.json"
ENV_VALUE = "COMPATIBLE"


def is_reference(torch: Any) -> bool:
    """Whether ``torch.sqrt`` gives the recorded reference results (both dtypes)."""
    data = json.loads(DATA.read_text())
    for name, ftype, utype in (("float32", np.float32, np.uint32), ("float64", np.float64, np.uint64)):
        inputs, outputs = (np.array([int(h, 16) for h in data[name][key]], utype)
                           for key in ("inputs", "outputs"))
        got = torch.sqrt(torch.from_numpy(inputs.view(ftype))).numpy().view(utype)
        if not np.array_equal(got, outputs):
            return False
    return True


def evaluate(torch: Any, expressions: dict[str, str], arrays: dict[str, np.ndarray],
             subprocess_only: bool = False) -> dict[str, np.ndarray]:
    """Each expression (Python text over ``torch`` and tensors named as ``arrays``, which it must not
    write to) on the reference torch, as NumPy arrays."""
    if not subprocess_only and is_reference(torch):
        return _evaluate(torch, expressions, arrays)
    with tempfile.TemporaryDirectory() as tmp:
        inputs, outputs, exprs = Path(tmp) / "in.npz", Path(tmp) / "out.npz", Path(tmp) / "exprs.json"
        np.savez(inputs, **arrays)
        exprs.write_text(json.dumps(expressions))
        code = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import mkl_reference; "
                f"mkl_reference._child({str(inputs)!r}, {str(exprs)!r}, {str(outputs)!r})")
        env = dict(os.environ, MKL_CBWR=ENV_VALUE)
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        with np.load(outputs) as results:
            return {name: results[name] for name in expressions}


def _evaluate(torch: Any, expressions: dict[str, str], arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    scope = {"torch": torch, **{k: torch.from_numpy(v.copy()) for k, v in arrays.items()}}
    return {name: np.array(eval(text, dict(scope)).detach().numpy()) for name, text in expressions.items()}


def _child(inputs: str, exprs: str, outputs: str) -> None:
    import torch
    with np.load(inputs) as data:
        arrays = {k: data[k] for k in data.files}
    results = _evaluate(torch, json.loads(Path(exprs).read_text()), arrays)
    if not is_reference(torch):
        sys.exit(f"torch does not run MKL's reference path even with MKL_CBWR={ENV_VALUE}")
    np.savez(outputs, **results)
