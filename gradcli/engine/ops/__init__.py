"""The op table.  Importing this package installs every op on Tensor and in FUNCTIONS.

Order matters only in that later modules use ops defined by earlier ones
inside their formulas (at call time, never at import time).
"""

from . import pointwise, conversions, shape, indexing, reductions, linalg, factories  # noqa: F401
from .registry import FUNCTIONS, METHOD_NAMES, NAMESPACES, OPS  # noqa: F401
