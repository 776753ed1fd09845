"""Case scripts run by PyTorch and by gradcli, for the oracle tests that compare their lines.

A case script (``forward_ad_cases.ag``, ``vmap_cases.ag``) prints one line per case and result,
``name kind value``; each side's lines are read into {(name, kind): value}.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Callable

from gradcli.lang import Session


def lines_of(text: str, keep: Callable[[str], bool] = lambda kind: True) -> dict[tuple[str, str], str]:
    found = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and keep(parts[1]):
            found[(parts[0], parts[1])] = parts[2]
    return found


def run_both(script: Path) -> tuple[str, str]:
    """The script's stdout under PyTorch (this Python) and under gradcli."""
    torch_run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    out = io.StringIO()
    outcome = Session(stdout=out).run_source(script.read_text(), str(script))
    assert outcome.exit_code == 0, out.getvalue()
    return torch_run.stdout, out.getvalue()


def mismatches(want: dict, got: dict, same_value: Callable[[str, str], bool]) -> list[str]:
    """The cases whose errors differ (exactly) or whose values are not ``same_value``."""
    bad = []
    for key, value in want.items():
        if key[1] == "error":
            if got[key] != value:
                bad.append(f"{key}: gradcli {got[key]!r}, torch {value!r}")
        elif not same_value(value, got[key]):
            bad.append(f"{key}: gradcli {got[key][:160]}, torch {value[:160]}")
    return bad
