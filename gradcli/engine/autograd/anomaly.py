"""Anomaly mode (``torch.autograd.detect_anomaly``, ``set_detect_anomaly``).

While it is on, every node made remembers where the forward pass was when it was made, and
the backward pass checks each node's outputs for nan (unless ``check_nan=False``).  When a node
fails -- a nan, or any error of its own -- a warning names the node and shows that place before
the error goes on, as PyTorch's engine does (``Function 'SqrtBackward0' returned nan values in
its 0th output.``).

PyTorch shows the Python traceback of the forward call; the engine knows no script, so the
front end that runs one installs ``locate`` (where the script is now, as an opaque value taken
at every node made while the mode is on) and ``describe`` (that value as traceback lines).
PyTorch also chains the nodes a create_graph backward made to the node that was running
("Previous calculation was induced by ..."); that chain is not kept here.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import TorchRuntimeError, TorchTypeError
from ..warnings import warn

enabled = False
checks_nan = True

_locate: Callable[[], Any] | None = None
_describe: Callable[[Any], str] | None = None

_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"


def set_front_end(locate: Callable[[], Any] | None, describe: Callable[[Any], str] | None) -> None:
    """Install how a node's forward place is taken (``locate()``) and shown (``describe(place)``)."""
    global _locate, _describe
    _locate, _describe = locate, describe


def set_anomaly_enabled(mode: Any, check_nan: Any = True) -> None:
    """``torch.set_anomaly_enabled``."""
    global enabled, checks_nan
    for position, (name, value) in enumerate((("enabled", mode), ("check_nan", check_nan)), 1):
        if not isinstance(value, bool):
            raise TorchTypeError(f"set_anomaly_enabled(): argument '{name}' (position {position}) must be "
                                 f"bool, not {type(value).__name__}")
    enabled, checks_nan = mode, check_nan


def is_anomaly_enabled() -> bool:
    return enabled


def is_anomaly_check_nan_enabled() -> bool:
    return checks_nan


class detect_anomaly:
    """Anomaly mode on inside the ``with`` block (warning that it is slow, as PyTorch does)."""

    __script_attrs__ = frozenset({"prev", "check_nan", "prev_check_nan"})

    def __init__(self, check_nan: Any = True) -> None:
        self.prev = enabled
        self.check_nan = check_nan
        self.prev_check_nan = checks_nan
        warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
             "enabled for debugging.")

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __repr__(self) -> str:
        return f"<torch.autograd.anomaly_mode.detect_anomaly object at {id(self):#x}>"


class set_detect_anomaly:
    """Anomaly mode set at once (a plain call) and restored when used as a ``with`` block."""

    __script_attrs__ = frozenset({"prev", "prev_check_nan"})

    def __init__(self, mode: Any, check_nan: Any = True) -> None:
        self.prev = enabled
        self.prev_check_nan = checks_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __repr__(self) -> str:
        return f"<torch.autograd.anomaly_mode.set_detect_anomaly object at {id(self):#x}>"


for _cls in (detect_anomaly, set_detect_anomaly):
    _cls.__module__ = "torch.autograd.anomaly_mode"


def remember(node: Any) -> None:
    """Called for every node made while the mode is on: where the forward pass is."""
    if _locate is not None:
        node._forward_place = _locate()


def report(node: Any) -> None:
    """The warning before a failing node's error: the node and where the forward made it."""
    place = getattr(node, "_forward_place", None)
    if place is None or _describe is None:
        warn(f"Error detected in {node.name()}. No forward pass information available. Enable detect "
             f"anomaly during forward pass for more information." + _TRIGGERED.format(100))
        return
    warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
         f"{_describe(place)}" + _TRIGGERED.format(122))


def check_output(node: Any, index: int, grad: Any) -> None:
    """PyTorch's check of a node's output (after it was summed to its input's shape)."""
    data = grad._data
    if data.dtype.kind in "fc" and np.isnan(data).any():
        raise TorchRuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")
