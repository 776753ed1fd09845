"""PyTorch's named return types (``torch.return_types.max(values=..., indices=...)``)."""

from __future__ import annotations

from typing import Any


def return_type(name: str, fields: tuple[str, ...]) -> type:
    """A tuple subclass that prints and unpacks like PyTorch's structseq ``name``."""

    def __new__(cls: type, *values: Any) -> Any:
        return tuple.__new__(cls, values)

    def __repr__(self: tuple) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    attrs: dict[str, Any] = {
        "__new__": __new__, "__repr__": __repr__, "__str__": __repr__, "__slots__": (),
        "__script_attrs__": frozenset(fields) | {"count", "index"}, "__module__": "torch.return_types",
        "n_fields": len(fields),
    }
    for i, f in enumerate(fields):
        attrs[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    cls = type(name, (tuple,), attrs)
    # Python's own messages name a type by its C tp_name, which follows __name__ ("'torch.return_types.max'
    # object is not callable"); the repr <class 'torch.return_types.max'> uses __module__ and __qualname__.
    cls.__name__ = f"torch.return_types.{name}"
    return cls
