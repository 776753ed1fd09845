"""The sandbox's rules for script classes, their instances and ``super()`` objects.

A member is reachable through the class in the method resolution order that defines it:

* a script class's members (methods, class attributes, properties) are the script's own: they
  may be read on the class and on instances, and set or deleted on the class;
* a member an engine or Python class defines is reachable only if that class lets a script
  reach it (its ``__script_attrs__`` or the built-in whitelists of gradcli.lang.safety; on
  instances also when the class is ``__script_dynamic__`` and lists nothing, as optim.Optimizer):
  so ``Net.mro``, ``fn._backward_cls``, ``net._call_impl`` or a Function's internals stay hidden;
* instance attributes the script set are reachable (script instances are dynamic);
* of the dunders, only ``__name__`` and ``__doc__`` of a class, ``__doc__`` of an instance and
  the special methods a script may define (classes.SPECIAL_METHODS) can be read -- where the
  class defining them opens them (classes.opens_special_methods).  ``__class__``, ``__dict__``,
  ``__mro__``, ``__subclasses__``, ``__func__``, ``__globals__`` ... never.
"""

from __future__ import annotations

from typing import Any

from gradcli.lang.classes import SCRIPT_CLASS, SPECIAL_METHODS, opens_special_methods
from gradcli.lang.errors import ScriptAttributeError, attribute_error
from gradcli.lang.safety import READABLE_CACHE, engine_private, is_dunder, lists_attributes, readable_attributes
from gradcli.lang.script_types import SCRIPT_TYPE_MARK, attribute_view, is_data_attribute

# gradcli's own bookkeeping on exceptions (where they happened): never the script's
_PRIVATE_PREFIX = "_gradcli_"

# script class -> instance_members(cls), for compiled attribute reads: an instance attribute of a
# script class (in its __dict__) is the script's own, and is read without further checks
SCRIPT_MEMBERS: dict[type, frozenset[str]] = {}


def defining_class(cls: type, name: str) -> type | None:
    """The first class in ``cls``'s method resolution order whose namespace holds ``name``."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    return None


def member_readable(owner: type, name: str, on_instance: bool) -> bool:
    """Whether a script may read ``name`` where ``owner`` defines it."""
    own = owner.__dict__.get(SCRIPT_CLASS)
    if own is not None:     # a script class: what the script put there, not what engine code added
        return name in own
    # (an engine class's members it does not list stay hidden on instances too, even where the
    # instances hold attributes of their own: nn.Module's _call_impl, a ctx's rule; a class that
    # lists none, optim.Optimizer, opens them all on instances)
    if name in readable_attributes(owner):
        return True
    return on_instance and bool(getattr(owner, "__script_dynamic__", False)) and not lists_attributes(owner)


def instance_members(cls: type) -> frozenset[str]:
    """The class-level names a script may read on instances of the script class ``cls`` (cached
    in READABLE_CACHE, which compiled attribute reads consult first)."""
    found = READABLE_CACHE.get(cls)
    if found is None:
        decided: dict[str, bool] = {}
        for klass in cls.__mro__:
            for name in klass.__dict__:
                if name not in decided and not is_dunder(name) and not name.startswith(_PRIVATE_PREFIX):
                    decided[name] = member_readable(klass, name, on_instance=True)
        found = frozenset(name for name, readable in decided.items() if readable)
        READABLE_CACHE[cls] = SCRIPT_MEMBERS[cls] = found
    return found


def forget_members() -> None:
    """A script class gained or lost a member: its instances' readable names change."""
    for cls in SCRIPT_MEMBERS:
        READABLE_CACHE.pop(cls, None)
    SCRIPT_MEMBERS.clear()


def _no_attribute(obj: Any, name: str) -> Exception:
    return attribute_error(f"'{type(obj).__name__}' object has no attribute '{name}'", obj, name)


def _no_class_attribute(cls: type, name: str) -> Exception:
    return attribute_error(f"type object '{cls.__name__}' has no attribute '{name}'", cls, name)


def instance_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` where ``type(obj)`` is a script class."""
    cls = type(obj)
    if is_dunder(name):
        if name == "__doc__" or name in SPECIAL_METHODS:
            owner = defining_class(cls, name)
            if owner is not None and opens_special_methods(owner):
                return getattr(obj, name)
        raise _no_attribute(obj, name)
    if name in instance_members(cls):
        return getattr(obj, name)
    if name.startswith(_PRIVATE_PREFIX):
        raise _no_attribute(obj, name)
    values = getattr(obj, "__dict__", None)
    if values is not None and name in values:
        if engine_private(obj, name):     # what an engine base keeps there (nn.Module's _parameters)
            raise _no_attribute(obj, name)
        return values[name]       # the script's own attribute, shadowing a hidden member
    if defining_class(cls, name) is None and defining_class(cls, "__getattr__") is not None:
        return getattr(obj, name)  # what the class's __getattr__ provides (nn.Module's parameters)
    raise _no_attribute(obj, name)


def class_attribute(cls: type, name: str) -> Any:
    """``Cls.name`` where ``Cls`` is a script class."""
    owner = defining_class(cls, name)
    if is_dunder(name):
        if name == "__name__":
            return cls.__name__
        if name == "__doc__":
            return cls.__doc__
        if name in SPECIAL_METHODS and owner is not None and opens_special_methods(owner):
            return getattr(cls, name)
        raise _no_class_attribute(cls, name)
    if owner is not None and not name.startswith(_PRIVATE_PREFIX) and member_readable(owner, name, False):
        raw = owner.__dict__[name]
        if SCRIPT_CLASS not in owner.__dict__ and not owner.__dict__.get(SCRIPT_TYPE_MARK, False) \
                and is_data_attribute(raw, owner):
            return attribute_view(owner, name, raw)   # (an engine or Python base's data attribute)
        return getattr(cls, name)
    raise _no_class_attribute(cls, name)


def super_attribute(proxy: super, name: str) -> Any:
    """``super().name``: the member of the next class in the instance's resolution order, if the
    class defining it lets a script reach it."""
    start, self_class = proxy.__thisclass__, proxy.__self_class__
    owner = None
    if self_class is not None:
        mro = self_class.__mro__
        for klass in mro[mro.index(start) + 1:] if start in mro else ():
            if name in klass.__dict__:
                owner = klass
                break
    if owner is not None:
        if is_dunder(name):
            if name in SPECIAL_METHODS and opens_special_methods(owner):
                return getattr(proxy, name)
        elif not name.startswith(_PRIVATE_PREFIX) and member_readable(
                owner, name, on_instance=not isinstance(proxy.__self__, type)):
            return getattr(proxy, name)
    raise attribute_error(f"'super' object has no attribute '{name}'", proxy, name)


def set_class_attribute(cls: type, name: str, value: Any) -> None:
    """``Cls.name = value`` on a script class: the member is the script's from now on."""
    own = cls.__dict__[SCRIPT_CLASS]
    if is_dunder(name) or name.startswith(_PRIVATE_PREFIX) or (name in cls.__dict__ and name not in own):
        # (nor what an engine base keeps on the class, such as a Function's node class)
        raise ScriptAttributeError(f"attribute '{name}' of 'type' objects is not writable")
    setattr(cls, name, value)
    if name not in own:
        type.__setattr__(cls, SCRIPT_CLASS, own | {name})
        forget_members()


def delete_class_attribute(cls: type, name: str) -> None:
    own = cls.__dict__[SCRIPT_CLASS]
    if name not in own or name not in cls.__dict__:
        raise _no_class_attribute(cls, name)
    delattr(cls, name)
    type.__setattr__(cls, SCRIPT_CLASS, own - {name})
    forget_members()
