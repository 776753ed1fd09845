"""Python 3.11's "Did you mean: 'weight'?" for NameError and AttributeError.

Read when an error is reported, never at start-up.  The rule is CPython's
(Python/suggestions.c, which the interpreter applies when it prints an
uncaught NameError or AttributeError): a Levenshtein distance where changing
a letter's case costs 1 and any other edit 2, at most a third of the letters
of both names changed, the first of the closest candidates winning, and no
suggestion from a list of 750 names or more.  For a NameError the lists are
tried in turn: the local variables of the function where it failed, then the
module's globals, then the builtins.  For an AttributeError the list is what
``dir()`` would give in PyTorch or Python:

* a tensor: PyTorch's public Tensor names together with the ones gradcli has
  (PyTorch's ``dir(tensor)`` also lists private and dunder names, 749 in all,
  under the limit; gradcli knows only the public ones);
* ``torch`` and its submodules: PyTorch's public names of that module -- ``torch``
  has more than 750, so PyTorch suggests nothing there, and neither does the
  message; gradcli's ``hint:`` line then names the closest function it has;
* Python's own values (str, list, dict, numbers, None, ...): Python's ``dir()``;
* anything else gradcli hands out: the attributes the sandbox lets a script read.

A suggestion the sandbox would refuse (a dunder, a private or an unlisted
Python attribute) is not made.  One PyTorch has and gradcli lacks is made,
with a ``hint:`` saying gradcli does not support it yet.
"""

from __future__ import annotations

import builtins as _python_builtins
import math
from typing import Any, Iterable

MAX_CANDIDATE_ITEMS = 750
MAX_STRING_SIZE = 40
MOVE_COST = 2
CASE_COST = 1

from gradcli.lang.errors import SUGGEST_ATTRIBUTE


def _substitution_cost(a: str, b: str) -> int:
    if a == b:
        return 0
    if a.lower() == b.lower():
        return CASE_COST
    return MOVE_COST


def levenshtein(a: str, b: str, max_cost: int) -> int:
    """CPython's levenshtein_distance (a result above ``max_cost`` means "too far")."""
    if a == b:
        return 0
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    end = 0
    while end < len(a) and end < len(b) and a[-1 - end] == b[-1 - end]:
        end += 1
    if end:
        a, b = a[:-end], b[:-end]
    if not a or not b:
        return (len(a) + len(b)) * MOVE_COST
    if len(a) > MAX_STRING_SIZE or len(b) > MAX_STRING_SIZE:
        return max_cost + 1
    if len(b) < len(a):
        a, b = b, a
    if (len(b) - len(a)) * MOVE_COST > max_cost:
        return max_cost + 1
    row = [MOVE_COST * (index + 1) for index in range(len(a))]
    result = 0
    for b_index, b_char in enumerate(b):
        distance = result = b_index * MOVE_COST
        minimum = None
        for index, a_char in enumerate(a):
            substitute = distance + _substitution_cost(b_char, a_char)
            distance = row[index]
            result = min(min(result, distance) + MOVE_COST, substitute)
            row[index] = result
            if minimum is None or result < minimum:
                minimum = result
        if minimum is not None and minimum > max_cost:
            return max_cost + 1
    return result


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """CPython's calculate_suggestions over one list of candidates."""
    items = list(candidates)
    if len(items) >= MAX_CANDIDATE_ITEMS:
        return None
    best: str | None = None
    best_distance = None
    for item in items:
        if not isinstance(item, str) or item == name:
            continue
        max_distance = (len(name) + len(item) + 3) * MOVE_COST // 6
        if best_distance is not None:
            max_distance = min(max_distance, best_distance - 1)
        distance = levenshtein(name, item, max_distance)
        if distance > max_distance:
            continue
        if best is None or distance < best_distance:
            best, best_distance = item, distance
    return best


# ---------------------------------------------------------------- NameError
def _python_order(names: dict) -> list[str]:
    """The builtins in the order of Python's builtins module (what decides a tie), then the rest."""
    ordered = [name for name in vars(_python_builtins) if name in names]
    seen = set(ordered)
    return ordered + [name for name in names if name not in seen]


def name_suggestion(exc: BaseException) -> str | None:
    scope = exc.__dict__.get(SUGGEST_ATTRIBUTE)
    name = getattr(exc, "name", None)
    if scope is None or not isinstance(name, str):
        return None
    if not isinstance(scope, tuple):
        return None
    local_names, global_names, builtin_names = scope
    for candidates in (list(local_names), list(global_names), _python_order(builtin_names)):
        found = closest(name, candidates)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------- AttributeError
_PYTHON_TYPES = (str, list, tuple, dict, set, frozenset, int, bool, float, complex, range, slice,
                 type(None), type(Ellipsis))


def _pytorch_names(obj: Any) -> frozenset[str] | None:
    """PyTorch's public names for ``obj`` if it mirrors a PyTorch object gradcli knows."""
    from gradcli.lang.safety import Namespace, type_name
    if type(obj) is Namespace:
        if obj.pytorch_module is None:
            return None
        from gradcli.lang.pytorch_names import MODULES
        return MODULES.get(obj.pytorch_module, frozenset())
    cls = obj if isinstance(obj, type) else type(obj)
    if type_name(cls) == "Tensor" and hasattr(cls, "__script_attrs__"):
        from gradcli.lang.pytorch_names import TENSOR
        return TENSOR
    return None


def attribute_candidates(obj: Any) -> list[str]:
    """What ``dir(obj)`` would list in PyTorch or Python (see the module's docstring)."""
    from gradcli.lang.safety import Namespace, readable_attributes
    if type(obj) is Namespace:
        names = set(obj.members)
        if obj.path == "math":
            names |= set(dir(math))
        names |= _pytorch_names(obj) or set()
        return sorted(names)
    pytorch = _pytorch_names(obj)
    if pytorch is not None:
        cls = obj if isinstance(obj, type) else type(obj)
        return sorted(pytorch | readable_attributes(cls))
    script = script_names(obj)
    if script is not None:
        return sorted(script)
    if type(obj) in _PYTHON_TYPES or (isinstance(obj, type) and obj in _PYTHON_TYPES):
        return dir(obj)
    cls = obj if isinstance(obj, type) and not issubclass(obj, type) else type(obj)
    return sorted(readable_attributes(cls))


def _reachable(obj: Any, name: str) -> bool:
    """Would ``obj.name`` work, or tell "gradcli does not support X yet"?"""
    from gradcli.lang.safety import Namespace, is_dunder, readable_attributes
    if is_dunder(name):
        return False
    if type(obj) is Namespace:
        return name in obj.members or obj.pytorch_has(name)
    pytorch = _pytorch_names(obj)
    if pytorch is not None and name in pytorch:
        return True
    script = script_names(obj)
    if script is not None:
        return name in script
    cls = obj if isinstance(obj, type) and not issubclass(obj, type) else type(obj)
    return name in readable_attributes(cls)


def script_names(obj: Any) -> set[str] | None:
    """For a script class or its instance: the names a script may read on it (its instance
    attributes, then what the classes let it reach), as Python's dir() would offer them."""
    from gradcli.lang.class_access import instance_members, member_readable
    from gradcli.lang.classes import is_script_class
    if isinstance(obj, type):
        if not is_script_class(obj):
            return None
        names: set[str] = set()
        for klass in obj.__mro__:
            names |= {name for name in klass.__dict__ if not name.startswith("__")
                      and member_readable(klass, name, on_instance=False)}
        return names
    if not is_script_class(type(obj)):
        return None
    own = {name for name in getattr(obj, "__dict__", {}) if not name.startswith(("__", "_gradcli_"))}
    return own | set(instance_members(type(obj)))


def attribute_suggestion(exc: BaseException) -> str | None:
    name = getattr(exc, "name", None)
    if not isinstance(name, str) or exc.__dict__.get(SUGGEST_ATTRIBUTE) is not True:
        return None
    obj = exc.obj  # type: ignore[attr-defined]
    found = closest(name, attribute_candidates(obj))
    if found is None or not _reachable(obj, found):
        return None
    return found


def suggestion(exc: BaseException) -> str | None:
    """The name CPython would suggest for this NameError or AttributeError, if any."""
    try:
        if isinstance(exc, NameError):
            return name_suggestion(exc)
        if isinstance(exc, AttributeError):
            return attribute_suggestion(exc)
    except Exception:   # a suggestion must never turn an error report into a crash
        return None
    return None


def suggestion_hint(exc: BaseException) -> str | None:
    """gradcli's hint for an unknown attribute: the target is not supported yet, or the closest
    name gradcli has where PyTorch has too many names to suggest one (``torch``)."""
    try:
        if not isinstance(exc, AttributeError) or exc.__dict__.get(SUGGEST_ATTRIBUTE) is not True:
            return None
        from gradcli.lang.safety import Namespace, readable_attributes
        obj, name = exc.obj, exc.name  # type: ignore[attr-defined]
        found = attribute_suggestion(exc)
        if found is not None and script_names(obj) is not None:
            return None    # a script's own class: what Python suggests is all there is to say
        if found is not None:
            supported = obj.members if type(obj) is Namespace else readable_attributes(
                obj if isinstance(obj, type) else type(obj))
            if found not in supported:
                where = obj.path if type(obj) is Namespace else "Tensor"
                return f"gradcli does not support {where}.{found} yet"
            return None
        if type(obj) is Namespace and len(attribute_candidates(obj)) >= MAX_CANDIDATE_ITEMS:
            near = closest(name, sorted(obj.members))
            if near is not None:
                return f"did you mean {obj.path}.{near}?"
    except Exception:
        return None
    return None
