"""Tick positions at round numbers (1, 2, 2.5, 5 x 10^k, as matplotlib's MaxNLocator picks) and
their labels, shared by the terminal, SVG and PNG drawings."""

from __future__ import annotations

import math

_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


def nice_ticks(low: float, high: float, most: int) -> list[float]:
    """Round values in [low, high], at most ``most`` of them (at least two where the range allows)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    most = max(2, most)
    raw = (high - low) / (most - 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for factor in _STEPS:
        step = factor * magnitude
        first = math.ceil(low / step - 1e-9)
        last = math.floor(high / step + 1e-9)
        if last - first + 1 <= most:
            break
    return [_clean(i * step) for i in range(first, last + 1)]


def _clean(value: float) -> float:
    rounded = float(f"{value:.12g}")
    return 0.0 if rounded == 0 else rounded   # never "-0"


def tick_labels(ticks: list[float], minus: str = "-") -> list[str]:
    """Labels with just the decimals the steps between ticks need (``0.5 1.0 1.5``); large and
    tiny values in scientific notation.  ``minus`` is the sign (matplotlib draws U+2212)."""
    if not ticks:
        return []
    biggest = max(abs(t) for t in ticks)
    step = min((abs(b - a) for a, b in zip(ticks, ticks[1:]) if b != a), default=biggest or 1.0)
    if biggest >= 1e5 or (biggest and biggest < 1e-3):
        texts = [_scientific(t) for t in ticks]
    else:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step else 0
        if any(abs(t * 10 ** decimals - round(t * 10 ** decimals)) > 1e-6 for t in ticks):
            decimals += 1   # 0.25 steps
        texts = [f"{t:.{decimals}f}" for t in ticks]
    return [text.replace("-", minus, 1) if text.startswith("-") else text for text in texts]


def _scientific(value: float) -> str:
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def short_number(value: float) -> str:
    """A value in a few characters (the terminal's axis ends)."""
    return f"{value:.4g}"
