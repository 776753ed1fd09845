"""Running ``gradcli explain`` as a user does, for the explain tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "samples" / "autograd_tutorial.ag"


def gradcli(*args: str, input: str | None = None, **env: str | None) -> subprocess.CompletedProcess:
    """gradcli in a fresh process at the checkout, without colour unless ``env`` asks for it."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    environment.update(PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="100")
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, capture_output=True, text=True,
                          env=environment, timeout=120, cwd=ROOT)
