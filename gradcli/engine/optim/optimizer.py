"""``torch.optim.Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

A port of PyTorch 2.13's ``torch.optim.Optimizer`` (the parts a CPU script can reach): the
same checks in the same order with the same messages, the same dict layouts (a group is the very
dict the script passed, completed with the defaults in their order), the same ``repr``.

The optimizers' updates (``sgd.py``, ``adam.py``, ...) call published Tensor methods; this package
is only ever loaded through ``api.LAZY_SUBMODULES``, after ``install()`` has published them.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.accumulate import zero_grads
from ..callbacks import call, transcribed
from ..dispatch.type_names import typename
from ..errors import TorchIndexError, TorchKeyError, TorchNotImplementedError, TorchTypeError, TorchValueError
from ..tensor import Tensor
from ..warnings import warn


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    __script_attrs__: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return "<required parameter>"


_RequiredParameter.__module__ = "torch.optim.optimizer"
required = _RequiredParameter()


def use_grad_for_differentiable(func: Callable) -> Callable:
    """``step`` runs with grad mode set to the optimizer's ``differentiable`` default (off, normally)."""
    @functools.wraps(func)
    def use_grad(self: "Optimizer", *args: Any, **kwargs: Any) -> Any:
        previous = grad_mode.is_grad_enabled()
        try:
            grad_mode._set(bool(self.defaults["differentiable"]))
            return call(func, self, *args, **kwargs)
        finally:
            grad_mode._set(previous)
    return use_grad


def run_closure(closure: Callable[[], Any] | None) -> Any:
    """The loss a step's closure returns, evaluated with grad enabled (None without a closure)."""
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return call(closure)


def scalar_dtype() -> dtypes.DType:
    """The dtype of a ``step`` counter: float64 under a float64 default dtype, else float32."""
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def step_counter(value: float = 0.0, dtype: dtypes.DType | None = None) -> Tensor:
    """``torch.tensor(value, dtype=_get_scalar_dtype())``: the CPU tensor a state's ``step`` is."""
    dtype = dtype or scalar_dtype()
    return Tensor._make(np.array(value, dtype=dtype.np), dtype)


def complete_group(group: dict[str, Any], **defaults: Any) -> None:
    """``group.setdefault`` of each option in turn: ``__setstate__``'s defaults for the options a group
    saved by an older optimizer lacks."""
    for name, value in defaults.items():
        group.setdefault(name, value)


def tensor_steps(state: Any, group: dict[str, Any], dtype: dtypes.DType | None = None) -> None:
    """``__setstate__``: a Python number ``step`` (an older state dict's) in the state of each of the
    group's parameters becomes the tensor PyTorch keeps now (``step_counter``)."""
    for p in group["params"]:
        p_state = state.get(p, [])
        if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
            p_state["step"] = step_counter(float(p_state["step"]), dtype)


def to_scalar(x: Any) -> Any:
    """A 1-element tensor hyperparameter as a 0-dim one; anything else as it is."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def get_value(x: Any) -> Any:
    """A tensor's Python number (``item()``), or the value itself."""
    return x.item() if isinstance(x, Tensor) else x


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`torch.Tensor` s or
            :class:`dict` s. Specifies what Tensors should be optimized.
        defaults: (dict): a dict containing default values of optimization
            options (used when a parameter group doesn't specify them).
    """

    # A script's optimizer subclass keeps its own attributes on self.
    __script_dynamic__ = True

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TorchTypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                                 "but got " + typename(params))
        self.state: defaultdict[Any, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(_iterate(params))
        if len(param_groups) == 0:
            raise TorchValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        format_string = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def state_dict(self) -> dict[str, Any]:
        """The state (keyed by each parameter's index over all groups) and the groups (params as indices)."""
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    @staticmethod
    def _process_value_according_to_param_policy(param: Tensor, value: Tensor, param_id: Any,
                                                 param_groups: list[dict[Any, Any]], key: Any = None) -> Tensor:
        fused = False
        capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=dtypes.float32)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load the optimizer state (an object returned by ``state_dict``)."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(_item(state_dict, "param_groups"))
        if len(groups) != len(saved_groups):
            raise TorchValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(_item(g, "params")) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise TorchValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                  "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param: Tensor, value: Any, param_id: Any = None, param_groups: Any = None, key: Any = None) -> Any:
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, Iterable):
                return type(value)(cast(param, v, param_id=param_id, param_groups=param_groups)  # type: ignore
                                   for v in value)
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in _item(state_dict, "state").items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors: to None, or (``set_to_none=False``) to zeros."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step to update parameter."""
        raise TorchNotImplementedError()

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a param group (a dict with ``params`` and any options) to ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TorchTypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = _item(param_group, "params")
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TorchTypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(_iterate(params))

        extracted_param_tensors = []
        extracted_param_names = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                if len(param) < 2:   # (PyTorch's Python code reads param[0] and param[1]: Python's IndexError)
                    raise TorchIndexError("tuple index out of range")
                extracted_param_names.append(param[0])
                extracted_param_tensors.append(param[1])
            else:
                extracted_param_tensors.append(param)
        param_group["params"] = extracted_param_tensors
        if len(extracted_param_names) != 0:
            if len(extracted_param_names) == len(extracted_param_tensors):
                param_group["param_names"] = extracted_param_names
            else:
                raise TorchValueError("all optimizer params should be with/without names. Some param names are "
                                      "missing")

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TorchTypeError("optimizer can only optimize Tensors, but one of the params is "
                                     + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise TorchValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise TorchValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause an "
                 "error; see github.com/pytorch/pytorch/issues/40967 for more information")

        param_set: set[int] = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = "with names" if "param_names" in param_group else "without names"
                raise TorchValueError("all optimizer param groups should be with/without names. "
                                      f"cannot add param group {current_group_txt} to the optimizer")
        if not param_set.isdisjoint(id(p) for p in param_group["params"]):
            raise TorchValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _iterate(obj: Any) -> Any:
    """``iter(obj)``, failing as Python's ``list(obj)`` does for what is not iterable."""
    try:
        return iter(obj)
    except TypeError:
        raise TorchTypeError(f"'{type(obj).__name__}' object is not iterable") from None


def _item(mapping: Any, key: str) -> Any:
    """``mapping[key]``, with Python's KeyError (as the script's error) for a missing key."""
    try:
        return mapping[key]
    except KeyError:
        raise TorchKeyError(key) from None


transcribed(Optimizer, "torch.optim.optimizer")
