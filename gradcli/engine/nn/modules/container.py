"""``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``
(``torch/nn/modules/container.py``): indexing, slicing, growing and printing as PyTorch's."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable
from itertools import chain, islice
from typing import Any, Iterator

from ...callbacks import pythons_errors
from ...device import TorchAssertionError
from ...errors import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, typename


def _addindent(s_: str, num_spaces: int) -> str:
    # (container.py's own copy: unlike module.py's it indents blank lines too)
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return first + "\n" + "\n".join((num_spaces * " ") + line for line in s)


def _index(idx: Any) -> int:
    try:
        return operator.index(idx)
    except TypeError as error:
        raise TorchTypeError(str(error)) from None


def _abs_string_index(container: Any, idx: Any) -> str:
    """ModuleList's and ParameterList's ``_get_abs_string_index``: the key of entry ``idx``."""
    idx = _index(idx)
    if not -len(container) <= idx < len(container):
        raise TorchIndexError(f"index {idx} is out of range")
    if idx < 0:
        idx += len(container)
    return str(idx)


def is_ordered_mapping(value: Any) -> bool:
    """An ``OrderedDict`` (Python's, or the language's own) or another mapping with ``items()``
    that is not a module: what ``Sequential`` takes as named layers."""
    if isinstance(value, OrderedDict) or type(value).__name__ == "OrderedDict":
        return True
    return not isinstance(value, Module) and callable(getattr(value, "items", None)) \
        and callable(getattr(value, "keys", None))


def _is_iterable(value: Any) -> bool:
    return hasattr(type(value), "__iter__")


class Sequential(Module):
    """Modules called one after the other."""

    __script_attrs__ = Module.__script_attrs__ | {"append", "insert", "extend", "pop"}

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and is_ordered_mapping(args[0]):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator: Iterable, idx: Any) -> Any:
        size = len(self)
        idx = _index(idx)
        if not -size <= idx < size:
            raise TorchIndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        str_indices = [str(i) for i in range(len(self._modules))]
        self._modules = OrderedDict(zip(str_indices, self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __add__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise TorchValueError("add operator supports only objects of Sequential class, but "
                                  f"{str(type(other))} is given.")
        ret = Sequential()
        for layer in self:
            ret.append(layer)
        for layer in other:
            ret.append(layer)
        return ret

    def __iadd__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise TorchValueError("add operator supports only objects of Sequential class, but "
                                  f"{str(type(other))} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: Any) -> "Sequential":
        if not isinstance(other, int):
            raise TorchTypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise TorchValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    __rmul__ = __mul__

    def pop(self, key: Any) -> Module:
        v = self[key]
        del self[key]
        return v

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def forward(self, input: Any) -> Any:  # noqa: A002 - PyTorch's name
        for module in self:
            input = module(input)
        return input

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise TorchAssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise TorchIndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> "Sequential":
        for layer in sequential:
            self.append(layer)
        return self


class ModuleList(Module):
    """A list of modules, registered as children."""

    __script_attrs__ = Module.__script_attrs__ | {"append", "insert", "extend", "pop"}

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx: Any) -> str:
        return _abs_string_index(self, idx)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._get_abs_string_index(idx), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        str_indices = [str(i) for i in range(len(self._modules))]
        self._modules = OrderedDict(zip(str_indices, self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        list_of_reprs = [repr(item) for item in self]
        if not list_of_reprs:
            return self._get_name() + "()"
        start_end_indices = [[0, 0]]
        repeated_blocks = [list_of_reprs[0]]
        for i, r in enumerate(list_of_reprs[1:], 1):
            if r == repeated_blocks[-1]:
                start_end_indices[-1][1] += 1
                continue
            start_end_indices.append([i, i])
            repeated_blocks.append(r)
        lines = []
        for (start_id, end_id), b in zip(start_end_indices, repeated_blocks):
            local_repr = f"({start_id}): {b}"
            if start_id != end_id:
                local_repr = f"({start_id}-{end_id}): {end_id - start_id + 1} x {b}"
            lines.append(_addindent(local_repr, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: Any) -> Module:
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        if not _is_iterable(modules):
            raise TorchTypeError("ModuleList.extend should be called with an iterable, but got "
                                 + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """A dict of modules, registered as children in insertion order."""

    __script_attrs__ = Module.__script_attrs__ | {"clear", "pop", "keys", "items", "values", "update"}

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        if not _is_iterable(modules):
            raise TorchTypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                                 + type(modules).__name__)
        if isinstance(modules, ModuleDict) or is_ordered_mapping(modules):
            for key, module in modules.items():
                self[key] = module
        else:
            _update_from_pairs(self, modules, "ModuleDict")


def _update_from_pairs(target: Any, pairs: Iterable[Any], kind: str) -> None:
    """ModuleDict's and ParameterDict's ``update`` from a sequence of (key, value) pairs, with their errors."""
    for j, pair in enumerate(pairs):
        if not _is_iterable(pair):
            raise TorchTypeError(kind + " update sequence element #" + str(j) + " should be Iterable; is"
                                 + type(pair).__name__)
        if not len(pair) == 2:
            raise TorchValueError(kind + " update sequence element #" + str(j) + " has length " + str(len(pair))
                                  + "; 2 is required")
        target[pair[0]] = pair[1]


def _tensor_line(key: Any, p: Any, dtype_text: str) -> str:
    size_str = "x".join(str(size) for size in p.size())
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"  ({key}): {kind} containing: [{dtype_text} of size {size_str}]"


class ParameterList(Module):
    """A list of parameters (a tensor given to it becomes a Parameter)."""

    __script_attrs__ = Module.__script_attrs__ | {"append", "extend"}

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx: Any) -> str:
        return _abs_string_index(self, idx)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        idx_str = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, idx_str, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> "ParameterList":
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        if not _is_iterable(values) or isinstance(values, Tensor):
            raise TorchTypeError("ParameterList.extend should be called with an iterable, but got "
                                 + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        child_lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                child_lines.append(_tensor_line(k, p, str(p.dtype)))
            else:
                child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        return "\n".join(child_lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TorchRuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters (a tensor given to it becomes a Parameter)."""

    __script_attrs__ = Module.__script_attrs__ | {
        "copy", "setdefault", "clear", "pop", "popitem", "get", "fromkeys", "keys", "items", "values", "update"}

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TorchTypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                                 f"(type is '{type(key).__name__}'). Open an issue on github if you need non-string "
                                 "keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in self._keys.copy():
            del self[k]

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> "ParameterDict":
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Any:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Any:
        return (self[k] for k in self._keys)

    @pythons_errors
    def update(self, parameters: Any) -> None:
        if not _is_iterable(parameters):
            raise TorchTypeError("ParametersDict.update should be called with an iterable of key/value pairs, but "
                                 "got " + type(parameters).__name__)
        if isinstance(parameters, ParameterDict) or isinstance(parameters, OrderedDict) \
                or type(parameters).__name__ == "OrderedDict":
            for key, parameter in parameters.items():
                self[key] = parameter
        elif is_ordered_mapping(parameters):
            for key, parameter in sorted(parameters.items()):  # (a plain dict's keys are sorted, as in PyTorch)
                self[key] = parameter
        else:
            _update_from_pairs(self, parameters, "ParameterDict")

    def extra_repr(self) -> str:
        child_lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                child_lines.append(_tensor_line(k, p, typename(p)))
            else:
                child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        return "\n".join(child_lines)

    def __call__(self, input: Any) -> Any:  # noqa: A002
        raise TorchRuntimeError("ParameterDict should not be called.")


for _cls in (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict):
    _cls.__module__ = "torch.nn.modules.container"
