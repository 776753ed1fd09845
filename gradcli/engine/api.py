"""What the engine offers a front end: the members of ``torch`` and its submodules.

The language layer turns these dicts into the namespaces a script sees; the
engine itself never looks at them.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from . import dtypes
from . import tensor as tensor_module
from .autograd import anomaly, forward_ad, grad_mode, saved_hooks
from .batching import state as vmap_state
from .autograd.multi_grad import register_multi_grad_hook
from .autograd.node import GraphNode
from .autograd.backward import backward as _backward
from .autograd.backward import grad as _grad
from .autograd.function import Function, FunctionCtx
from .autograd.once_differentiable import once_differentiable
from .device import CPU, Device, check_cpu
from .budget import set_max_elements, set_max_memory  # noqa: F401  (re-exported for the CLI)
from .dispatch.parsed import parsed
from .dispatch.publish import FUNCTIONS, METHOD_NAMES, NAMESPACES
from .install import install
from .layout import strided
from .lazy_random import rng
from .ops import generators, legacy
from .printing import reset_printoptions, set_printoptions
from .size import Size
from .tensor import Tensor
from .. import TORCH_VERSION
from .transforms import autograd_functional as _functional
from .transforms.gradcheck import gradcheck, gradgradcheck
from .warnings import reset_warned_once

install()


def _is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


def _numel(t: Tensor) -> int:
    return t.numel()


def _is_floating_point(t: Tensor) -> bool:
    return t.is_floating_point()


def _set_default_device(device: Any) -> None:
    check_cpu(device)


def _get_default_device() -> Device:
    return CPU


def _no_cuda() -> bool:
    return False


def _zero() -> int:
    return 0


def vmap(func: Any, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Any = None) -> Any:
    """``torch.vmap`` (torch.func's, loaded on first use)."""
    from .transforms.vmap import vmap as func_vmap
    return func_vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def _build_torch() -> dict[str, Any]:
    members: dict[str, Any] = {k: v for k, v in FUNCTIONS.items() if not k.startswith("_")}
    members.update({name: d for name, d in dtypes.ALIASES.items()})
    members.update({
        "Tensor": Tensor, "Size": Size, "dtype": dtypes.DType, "device": Device,
        "strided": strided,
        "Generator": generators.Generator, "default_generator": generators.default_generator,
        **legacy.TYPED_CLASSES,
        "no_grad": grad_mode.no_grad, "enable_grad": grad_mode.enable_grad,
        "set_grad_enabled": grad_mode.set_grad_enabled, "is_grad_enabled": grad_mode.is_grad_enabled,
        "inference_mode": grad_mode.inference_mode,
        "is_anomaly_enabled": anomaly.is_anomaly_enabled, "set_anomaly_enabled": anomaly.set_anomaly_enabled,
        "is_anomaly_check_nan_enabled": anomaly.is_anomaly_check_nan_enabled,
        "get_default_dtype": dtypes.get_default_dtype, "set_default_dtype": dtypes.set_default_dtype,
        "set_printoptions": set_printoptions,
        "is_tensor": _is_tensor, "numel": parsed(_numel, ["numel(Tensor input)"]),
        "is_floating_point": parsed(_is_floating_point, ["is_floating_point(Tensor input)"]),
        "set_default_device": _set_default_device, "get_default_device": _get_default_device,
        "vmap": vmap, "__version__": TORCH_VERSION,
        "pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
    })
    return members


TORCH: dict[str, Any] = _build_torch()

SUBMODULES: dict[str, dict[str, Any]] = {
    "autograd": {
        "grad": _grad, "backward": _backward, "no_grad": grad_mode.no_grad,
        "enable_grad": grad_mode.enable_grad, "set_grad_enabled": grad_mode.set_grad_enabled,
        "gradcheck": gradcheck, "gradgradcheck": gradgradcheck, "Function": Function,
        "Variable": legacy.Variable,
        "detect_anomaly": anomaly.detect_anomaly, "set_detect_anomaly": anomaly.set_detect_anomaly,
    },
    "autograd.graph": {
        "saved_tensors_hooks": saved_hooks.saved_tensors_hooks, "save_on_cpu": saved_hooks.save_on_cpu,
        "disable_saved_tensors_hooks": saved_hooks.disable_saved_tensors_hooks, "Node": GraphNode,
        "register_multi_grad_hook": register_multi_grad_hook,
    },
    "autograd.anomaly_mode": {
        "detect_anomaly": anomaly.detect_anomaly, "set_detect_anomaly": anomaly.set_detect_anomaly,
    },
    "autograd.function": {
        "Function": Function, "FunctionCtx": FunctionCtx, "once_differentiable": once_differentiable,
    },
    "autograd.functional": {
        "jacobian": _functional.jacobian, "hessian": _functional.hessian, "vjp": _functional.vjp,
        "jvp": _functional.jvp, "hvp": _functional.hvp, "vhp": _functional.vhp,
    },
    "nn": {},
    "nn.functional": dict(NAMESPACES.get("nn.functional", {})),
    "linalg": dict(NAMESPACES.get("linalg", {})),
    "optim": {},
    "cuda": {"is_available": _no_cuda, "device_count": _zero},
    "random": dict(generators.RANDOM_MODULE),
}


def _optim_members() -> dict[str, Any]:
    from . import optim
    return optim.members()


def _lr_scheduler_members() -> dict[str, Any]:
    from . import optim
    return optim.lr_scheduler_members()


def _nn_members() -> dict[str, Any]:
    from .nn.modules import members
    return members()


def _forward_ad_members() -> dict[str, Any]:
    from .transforms import dual_tensors
    return dual_tensors.members()


def _func_members() -> dict[str, Any]:
    from .transforms import func
    return func.members()


def functorch_members() -> dict[str, Any]:
    """``functorch``'s members (the language makes it a module of its own: it is not torch's)."""
    from .transforms import func
    return func.functorch_members()


def _testing_members() -> dict[str, Any]:
    from . import testing
    return testing.members()


def _nn_init_members() -> dict[str, Any]:
    from .nn.init import members
    return members()


# Submodules whose members load on first use (a script that never touches them does not pay
# for importing them): path -> a function returning the members.
LAZY_SUBMODULES: dict[str, Any] = {
    "nn": _nn_members,
    "nn.init": _nn_init_members,
    "autograd.forward_ad": _forward_ad_members,
    "func": _func_members,
    "optim": _optim_members,
    "optim.lr_scheduler": _lr_scheduler_members,
    "testing": _testing_members,
}

# Tensor methods that also have a function form in the calculator shorthand.
TENSOR_METHODS: frozenset[str] = frozenset(
    METHOD_NAMES | {"backward", "retain_grad", "register_hook", "detach", "detach_", "requires_grad_",
                    "item", "tolist", "numel", "dim", "size", "nelement", "ndimension", "is_contiguous",
                    "is_floating_point", "element_size", "stride", "type"})

FACTORIES: frozenset[str] = frozenset({
    "tensor", "ones", "zeros", "full", "empty", "eye", "arange", "linspace", "logspace", "rand", "randn",
    "randint", "randperm", "normal", "ones_like", "zeros_like", "full_like", "empty_like", "rand_like",
    "randn_like", "randint_like", "as_tensor", "Tensor",
})


def reset_global_state(seed: int | None = None) -> None:
    """Back to a fresh process: default dtype, print options, grad mode, element limit, RNG.

    With ``seed`` None the generator is reseeded non-deterministically, as a
    new PyTorch process would be.
    """
    dtypes.set_default_dtype(dtypes.float32)
    reset_printoptions()
    grad_mode._set(True)
    anomaly.set_anomaly_enabled(False, True)
    saved_hooks.reset()
    forward_ad.reset()
    vmap_state.reset()
    tensor_module._grad_layers = ()
    func = sys.modules.get("gradcli.engine.transforms.func")   # (loaded only if a script used torch.func)
    if func is not None:
        func._depth = 0
    set_max_elements(None)
    reset_warned_once()
    if seed is None:
        rng.default_generator.seed()
    else:
        rng.default_generator.manual_seed(seed)
