"""The size checks the ops make before allocating (see ``gradcli.engine.budget``, which holds
the limits themselves: hot paths read its module globals directly)."""

from __future__ import annotations

from ..budget import (check_array, check_bytes, check_count, check_expanded, check_size,  # noqa: F401
                      check_tensors, limited, note_view, set_max_elements, set_max_memory)
