"""Loading a state dict into a module tree (``Module._load_from_state_dict``, ``Module.load_state_dict``).

Each module copies the entries under its prefix into its parameters and
persistent buffers (under ``no_grad``, keeping the tensors), collecting
missing and unexpected keys and size mismatches; the errors are reported
together, worded as PyTorch words them.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

from ...autograd import grad_mode
from ...errors import TorchAttributeError, TorchRuntimeError, TorchTypeError
from ...tensor import Tensor
from ..parameter import Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns."""

    __slots__ = ()
    __script_attrs__ = frozenset({"missing_keys", "unexpected_keys"})

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_IncompatibleKeys.__module__ = "torch.nn.modules.module"


def load_own_state(self: Any, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                   missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
    persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
    local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
    local_state = {k: v for k, v in local_name_params if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                                  f"from checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with grad_mode.no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        elif isinstance(param, Parameter):
                            input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001 - PyTorch reports any failure of the copy
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model '
                                  f"are {param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        elif strict:
            missing_keys.append(key)
    if strict:
        for key in state_dict:
            if not isinstance(key, str):   # (PyTorch's Python code calls key.startswith)
                raise TorchAttributeError(f"'{type(key).__name__}' object has no attribute 'startswith'")
            if key.startswith(prefix) and key != prefix + "_extra_state":
                input_name = key[len(prefix):].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in self._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)

def load_state_dict(self: Any, state_dict: Any, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
    if not isinstance(state_dict, Mapping):
        raise TorchTypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)

    def load(module: Any, local_state_dict: dict, prefix: str = "") -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                load(child, child_state_dict, child_prefix)

    load(self, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise TorchRuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            self.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)
