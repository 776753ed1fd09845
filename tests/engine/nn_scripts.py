"""Running a Python snippet against real PyTorch or against gradcli's engine, for the nn oracle tests.

A snippet sees ``torch``, ``nn``, ``F`` and ``init`` as names (no imports) and
defines plain Python classes (``class Net(nn.Module)``) as a script's classes
will be.  Its printed output, its warnings and the error it ends with are
what the tests compare.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from typing import Any

from gradcli.engine import api
from gradcli.engine import warnings as engine_warnings

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


class _Namespace:
    """A module-like object over a dict of members."""

    def __init__(self, members: dict[str, Any]) -> None:
        self.__dict__.update(members)


def gradcli_names() -> dict[str, Any]:
    """``torch``, ``nn``, ``F``, ``init`` made of gradcli's engine tables."""
    functional = _Namespace(api.SUBMODULES["nn.functional"])
    init = _Namespace(api.LAZY_SUBMODULES["nn.init"]())
    nn = _Namespace({**api.LAZY_SUBMODULES["nn"](), "functional": functional, "init": init})
    autograd = _Namespace({**api.SUBMODULES["autograd"],
                           "functional": _Namespace(api.SUBMODULES["autograd.functional"])})
    optim = _Namespace(api.LAZY_SUBMODULES["optim"]())
    torch = _Namespace({**api.TORCH, "nn": nn, "autograd": autograd, "optim": optim,
                        "linalg": _Namespace(api.SUBMODULES["linalg"])})
    return {"torch": torch, "nn": nn, "F": functional, "init": init}


def torch_names() -> dict[str, Any]:
    import torch
    return {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "init": torch.nn.init}


def run(source: str, names: dict[str, Any], *, real_torch: bool) -> tuple[str, str | None, list[str]]:
    """(stdout with addresses blanked, "Type: message" of the error it ended with or None, warnings)."""
    out = io.StringIO()
    seen: list[str] = []
    error = None
    scope: dict[str, Any] = {"__name__": "__main__", **names}
    if real_torch:
        torch = names["torch"]
        torch.set_default_dtype(torch.float32)
        torch.set_printoptions(profile="default")
        context: Any = warnings.catch_warnings(record=True)
    else:
        api.reset_global_state(seed=0)
        engine_warnings.set_warning_handler(lambda category, message: seen.append(f"{category}: {message}"))
        context = contextlib.nullcontext()
    try:
        with context as caught, contextlib.redirect_stdout(out):
            if real_torch:
                warnings.simplefilter("always")
            try:
                exec(compile(source, "<snippet>", "exec"), scope)  # noqa: S102 - test snippets only
            except Exception as exc:  # noqa: BLE001 - the error is part of what is compared
                error = f"{type(exc).__name__}: {exc}"
        if real_torch:
            seen = [f"{w.category.__name__}: {w.message}" for w in caught]
    finally:
        if not real_torch:
            engine_warnings.set_warning_handler(None)
    return ADDRESS.sub("0x?", out.getvalue()), error, seen
