"""How the elements of one printed tensor are written (torch's ``_Formatter``).

One formatter is built per print from the elements that will be shown (all of
them, or the summarized ones). It fixes the mode (integer-looking floats,
fixed point or scientific) and one column width shared by every element.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class Formatter:
    """Chooses the mode and width for ``sample``; then formats Python scalars.

    ``kind`` is ``"float"``, ``"int"`` or ``"bool"``. Floats are always written
    as Python floats (the exact double of a float32 value), as torch does.
    """

    def __init__(self, sample: np.ndarray, kind: str, precision: Any, sci_mode: Any) -> None:
        self.kind = kind
        self.precision = precision
        self.int_mode = True
        self.sci_mode: Any = False
        self.width = 1
        flat = sample.reshape(-1)
        if kind == "bool":
            if flat.size:
                self.width = 4 if flat.all() else 5
            return
        if kind == "int":
            if flat.size:
                # len(str(n)) grows with |n| and the sign, so the extremes decide.
                self.width = max(len(str(int(flat.max()))), len(str(int(flat.min()))))
            return
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            # Only zeros, nan and inf: torch keeps int mode and ignores sci_mode.
            return
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        magnitude = np.abs(nonzero_finite)
        smallest = float(magnitude.min())
        largest = float(magnitude.max())
        if sci_mode is None:
            # Python floats: the ratio and bounds are tested in double, like torch.
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = sci_mode
        self.width = max(1, *(len(s) for s in self._width_strings(nonzero_finite)))

    def _width_strings(self, nonzero_finite: np.ndarray) -> list[str]:
        """Format only the elements that can be widest, instead of all of them.

        Fixed point: the string length never shrinks as |x| grows, and a minus
        sign adds one, so the largest and the most negative value decide.
        Scientific: only the sign and a three-digit exponent change the length,
        so the largest and smallest magnitude of each sign decide.
        """
        positive = nonzero_finite[nonzero_finite > 0]
        negative = nonzero_finite[nonzero_finite < 0]
        if self.sci_mode:
            spec = f"{{:.{self.precision}e}}"
            picks = []
            for part in (positive, negative):
                if part.size:
                    picks += [part.min(), part.max()]
            return [spec.format(float(x)) for x in picks]
        picks = [nonzero_finite.max(), nonzero_finite.min()]
        if self.int_mode:
            return [f"{float(x):.0f}." for x in picks]
        spec = f"{{:.{self.precision}f}}"
        return [spec.format(float(x)) for x in picks]

    def format_all(self, values: list[Any]) -> list[str]:
        """Format Python scalars (from ``ndarray.tolist()``), right-aligned to the width."""
        width = self.width
        if self.kind != "float":
            strings = [f"{v}" for v in values]
        elif self.sci_mode:
            spec = f"{{:{width}.{self.precision}e}}"
            strings = [spec.format(v) for v in values]
        elif self.int_mode:
            # The trailing dot marks a float; nan and inf get none.
            strings = [f"{v:.0f}." if math.isfinite(v) else f"{v:.0f}" for v in values]
        else:
            spec = f"{{:.{self.precision}f}}"
            strings = [spec.format(v) for v in values]
        return [s.rjust(width) for s in strings]
