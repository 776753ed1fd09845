"""TEMPORARY re-exports while the op families move."""
from ..errors import no_kernel  # noqa: F401
from ..kernels.float32_math import erf as _erf, wide  # noqa: F401
from .constants import ones_like, zeros_like  # noqa: F401
from .pointwise_binary import keep_first_on_ties as _keep_first_on_ties  # noqa: F401
from .pointwise_binary import _tie_split  # noqa: F401
