"""Keyword parameter names of a callable a script can reach, for ``name=`` completion.

Script functions list their parameters; everything else answers
``inspect.signature``: the engine's generated torch functions and methods
carry a ``__signature__`` made from their PyTorch signatures, and the
language's wrappers (the shorthand's method forms, ``grad``) point at what
they wrap with ``__wrapped__``.  A completion that cannot be worked out is
simply not offered.
"""

from __future__ import annotations

import inspect
from typing import Any

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def parameter_names(function: Any) -> list[str]:
    """Names that ``function(name=...)`` accepts, in declaration order; [] when unknown."""
    declared = getattr(function, "signature", None)  # a function the script defined
    if declared is not None and hasattr(declared, "names"):
        return _unique(list(declared.names) + list(getattr(declared, "kwonly", ())))
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin without one, or not a callable at all
        return []
    except Exception:  # introspection must never break the prompt
        return []
    return _unique(p.name for p in parameters if p.kind in _KEYWORD_KINDS)


def _unique(names: Any) -> list[str]:
    return list(dict.fromkeys(name for name in names
                              if name and name != "self" and not name.startswith("_")))
