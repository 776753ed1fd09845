"""``torch.device``: gradcli runs on the CPU only, like PyTorch's CPU build."""

from __future__ import annotations

from .errors import TorchRuntimeError, TorchTypeError

_KNOWN_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class Device:
    __slots__ = ("type", "index")
    __script_attrs__ = frozenset({"type", "index"})

    def __new__(cls, type: object, index: int | None = None) -> "Device":  # noqa: A002 - PyTorch's name
        # the class is torch.device itself (isinstance works): calling it parses a spec
        return parse_device(type, index)

    @classmethod
    def _of(cls, kind: str, index: int | None) -> "Device":
        device = object.__new__(cls)
        device.type = kind
        device.index = index
        return device

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


Device.__module__ = "torch"
Device.__qualname__ = "device"
# Python's messages use the C tp_name, which follows __name__: "'torch.device' object is not
# callable"; the repr <class 'torch.device'> comes from __module__ and __qualname__.
Device.__name__ = "torch.device"

CPU = Device._of("cpu", None)


def parse_device(spec: object, index: int | None = None) -> Device:
    """``torch.device(spec)``: a Device for 'cpu', PyTorch's CPU-build error for others."""
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = f"cuda:{spec}"
    if not isinstance(spec, str):
        raise TorchTypeError(
            f"device() received an invalid combination of arguments - got ({type(spec).__name__}), "
            "but expected one of:\n * (torch.device device)\n * (str type, int index = -1)\n")
    kind, _, idx = spec.partition(":")
    if kind not in _KNOWN_TYPES:
        raise TorchRuntimeError(
            f"Expected one of {', '.join(_KNOWN_TYPES)} device type at start of device string: {spec}")
    number = int(idx) if idx else index
    return Device._of(kind, number)


def check_cpu(device: object) -> None:
    """Accept a CPU device; fail on any other as PyTorch's CPU build does."""
    if device is None:
        return
    d = parse_device(device)
    if d.type == "cuda":
        raise TorchAssertionError("Torch not compiled with CUDA enabled")
    if d.type != "cpu":
        raise TorchRuntimeError(
            f"Could not run 'aten::empty.memory_format' with arguments from the '{d.type.upper()}' backend.")


from .errors import _visible  # noqa: E402  (AssertionError is only needed here)

TorchAssertionError = _visible(AssertionError)
