"""Helpers for the REPL tests: a Console writing into strings, outputs with addresses masked."""

from __future__ import annotations

import io
import re
from pathlib import Path

from gradcli.repl.core import Console

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "samples" / "autograd_tutorial.ag"
_ADDRESS = re.compile(r"0x[0-9a-f]+")


class Captured:
    """A Console whose stdout and stderr are strings."""

    def __init__(self, stdout=None, stderr=None, **options) -> None:
        self.out = stdout or io.StringIO()
        self.err = stderr or io.StringIO()
        self.console = Console(stdout=self.out, stderr=self.err, **options)

    def push(self, *lines: str) -> list[bool]:
        return [self.console.push(line) for line in lines]

    def take(self) -> tuple[str, str]:
        """What was written since the last take: (stdout, stderr)."""
        out, err = self.out.getvalue(), self.err.getvalue()
        for stream in (self.out, self.err):
            stream.seek(0)
            stream.truncate()
        return out, err


def masked(text: str) -> str:
    """Object addresses differ from run to run."""
    return _ADDRESS.sub("0x?", text)
