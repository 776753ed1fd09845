"""Running gradcli as a user does, for the tests of this folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment without colour settings, PYTHONPATH at the checkout, then ``changes``."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("NO_COLOR", "FORCE_COLOR", "TERMINAL_WIDTH", "PY_COLORS", "GITHUB_ACTIONS",
                           "_GRADCLI_COMPLETE", "_TYPER_FORCE_DISABLE_TERMINAL")}
    env.update(PYTHONPATH=str(ROOT), COLUMNS="80", NO_COLOR="1")
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def gradcli_process(*args: str, input: str | None = None, **env: str | None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, capture_output=True,
                          text=True, env=environment(**env), timeout=60, cwd=ROOT)


def flowing(text: str) -> str:
    """Help text without its boxes and line breaks, to find a wrapped sentence in."""
    return re.sub(r"[│╭╮╰╯─\s]+", " ", text)


def command_names() -> list[str]:
    import typer.main

    from gradcli.cli import build_app
    return sorted(typer.main.get_command(build_app()).commands)
