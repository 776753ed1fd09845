"""``torch.Generator`` as scripts see it, and the seeding functions of ``torch`` / ``torch.random``.

A ``Generator`` here is a handle on one of the engine's generators
(``gradcli.engine.random.Generator``, which knows no tensors): it adds PyTorch's
API on top -- ``get_state`` as a uint8 tensor, ``device``, PyTorch's argument
errors.  ``torch.default_generator`` is the handle on the process-wide engine
generator, which is only created (with NumPy's random module) when first used,
so a script that draws nothing pays nothing at start-up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..device import CPU, Device, parse_device
from ..dispatch.signature import LazyParser, py_type_name
from ..errors import TorchOverflowError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..lazy_random import rng
from ..tensor import Tensor
from .random_args import CATALOG

_CUDA_MISSING = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared libraries: "
    "a CPU library and a CUDA library; this error has occurred because you are trying to use some CUDA "
    "functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA "
    "library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA library! One common culprit "
    "is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library "
    "dependencies if you don't depend on any of their symbols.  You can check if this has occurred by using ldd "
    "on your binary to see if there is a dependency on *_cuda.so library.")

_NEW = LazyParser("Generator(device? device=None)")


def _check_device(device: Any) -> None:
    """``Generator(device)`` on PyTorch's CPU build: only the CPU has generators."""
    if device is None:
        return
    kind = parse_device(device).type
    if kind == "cuda":
        raise TorchRuntimeError(_CUDA_MISSING)
    if kind == "mps":
        raise TorchRuntimeError("Cannot execute getNewGenerator() without MPS backend.")
    if kind != "cpu":
        raise TorchRuntimeError(f"{kind.upper()} device type not an accelerator.")


def _no_arguments(name: str, args: tuple, kwargs: dict) -> None:
    if kwargs:
        raise TorchTypeError(f"Generator.{name}() takes no keyword arguments")
    if args:
        raise TorchTypeError(f"Generator.{name}() takes no arguments ({len(args)} given)")


def _one_argument(name: str, args: tuple, kwargs: dict) -> Any:
    if kwargs:
        raise TorchTypeError(f"Generator.{name}() takes no keyword arguments")
    if len(args) != 1:
        raise TorchTypeError(f"Generator.{name}() takes exactly one argument ({len(args)} given)")
    return args[0]


class Generator:
    """``torch.Generator(device='cpu')``: its own stream, seeded with 67280421310721 until ``manual_seed``."""

    __slots__ = ("_gen", "__weakref__")
    __script_attrs__ = frozenset({"manual_seed", "seed", "initial_seed", "get_state", "set_state", "device",
                                  "clone_state"})
    #: Marks the type for argument parsers (``generator=``), which cannot import this module.
    __torch_generator__ = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        given = args[0] if args else kwargs.get("device")
        if isinstance(given, int) and not isinstance(given, bool):  # a device index: an accelerator's
            raise TorchRuntimeError("Cannot access accelerator device when none is available.")
        _, b = _NEW.parse(args, kwargs)
        _check_device(b["device"])
        self._gen: Any = rng.Generator()

    @classmethod
    def _default(cls) -> "Generator":
        """The handle on the process-wide generator (``torch.default_generator``)."""
        handle = cls.__new__(cls)
        handle._gen = None
        return handle

    def engine(self) -> Any:
        """The engine generator this handle draws from."""
        return rng.default_generator if self._gen is None else self._gen

    def manual_seed(self, *args: Any, **kwargs: Any) -> "Generator":
        self.engine().manual_seed(_one_argument("manual_seed", args, kwargs))
        return self

    def seed(self, *args: Any, **kwargs: Any) -> int:
        _no_arguments("seed", args, kwargs)
        return self.engine().seed()

    def initial_seed(self, *args: Any, **kwargs: Any) -> int:
        _no_arguments("initial_seed", args, kwargs)
        return self.engine().initial_seed()

    def get_state(self, *args: Any, **kwargs: Any) -> Tensor:
        """The 5056 bytes of PyTorch's CPU generator state, as a fresh uint8 tensor."""
        _no_arguments("get_state", args, kwargs)
        return Tensor._make(np.frombuffer(self.engine().get_state(), dtype=np.uint8).copy(), dtypes.uint8)

    def set_state(self, *args: Any, **kwargs: Any) -> "Generator":
        state = _one_argument("set_state", args, kwargs)
        if not isinstance(state, Tensor):
            raise TorchTypeError(f"expected a torch.ByteTensor, but got {py_type_name(state)}")
        if state._dtype is not dtypes.uint8:
            raise TorchTypeError("RNG state must be a torch.ByteTensor")
        self.engine().set_state(np.ascontiguousarray(state._data).tobytes())
        return self

    def clone_state(self, *args: Any, **kwargs: Any) -> "Generator":
        """A new generator in this one's state (the caches included)."""
        _no_arguments("clone_state", args, kwargs)
        copy = Generator()
        copy._gen.set_state(self.engine().get_state())
        return copy

    @property
    def device(self) -> Device:
        return CPU


# Shown as PyTorch shows it: <torch._C.Generator object at 0x...>, <class 'torch._C.Generator'>,
# and "'torch._C.Generator' object has no attribute 'x'" (the C tp_name).
Generator.__module__ = "torch._C"
Generator.__qualname__ = "Generator"
Generator.__name__ = "torch._C.Generator"

#: ``torch.default_generator``: what ``torch.manual_seed`` returns and samplers use without ``generator=``.
default_generator = Generator._default()


def manual_seed(seed: Any) -> Generator:
    """``torch.manual_seed``: Python's ``int(seed)`` first (its errors are Python's)."""
    try:
        seed = int(seed)
    except ValueError as e:
        raise TorchValueError(str(e)) from None
    except TypeError as e:
        raise TorchTypeError(str(e)) from None
    except OverflowError as e:  # (int(inf))
        raise TorchOverflowError(str(e)) from None
    rng.default_generator.manual_seed(seed)
    return default_generator


def seed() -> int:
    return rng.default_generator.seed()


def initial_seed() -> int:
    return rng.default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """``torch.get_rng_state()``: the default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """``torch.set_rng_state(new_state)``: restores a state ``get_rng_state`` returned."""
    default_generator.set_state(new_state)


class fork_rng:  # noqa: N801 - PyTorch's name
    """``torch.random.fork_rng()``: the CPU generator's state is restored when the block ends.

    Only the CPU generator exists here; ``devices`` must name none other (PyTorch's
    CPU build warns about nothing then).  ``enabled=False`` makes it a no-op.
    """

    __slots__ = ("_enabled", "_saved")
    __script_attrs__ = frozenset()

    def __init__(self, devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
                 _devices_kw: str = "devices", device_type: str = "cuda") -> None:
        self._enabled = enabled
        self._saved: bytes | None = None

    def __enter__(self) -> None:
        if self._enabled:
            self._saved = rng.default_generator.get_state()

    def __exit__(self, *exc: Any) -> bool:
        if self._saved is not None:
            rng.default_generator.set_state(self._saved)
        return False


fork_rng.__module__ = "torch.random"

#: torch.random's members (torch.random is also a module of its own).
RANDOM_MODULE = {"manual_seed": manual_seed, "seed": seed, "initial_seed": initial_seed,
                 "get_rng_state": get_rng_state, "set_rng_state": set_rng_state, "fork_rng": fork_rng,
                 "default_generator": default_generator, "Generator": Generator}

for _name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"):
    CATALOG.register(RANDOM_MODULE[_name], _name, torch=True)
