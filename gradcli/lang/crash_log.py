"""Keep the traceback of an internal error (a bug in gradcli) in a file the user can send.

The report on stderr stays one line; the file, in the user's state directory
(platformdirs: ``$XDG_STATE_HOME/gradcli/internal-errors/`` on Linux, next to the REPL's
history), holds the traceback, the versions and the command line.  Only a few recent files
are kept.
"""

from __future__ import annotations

import os
import sys

KEEP = 20   # files kept; older ones are removed when a new one is written


def crash_folder() -> str:
    from platformdirs import user_state_path
    return str(user_state_path("gradcli", appauthor=False) / "internal-errors")


def save_traceback(error: BaseException) -> str | None:
    """Write ``error``'s traceback to a new file; its path, or None if it cannot be written."""
    try:
        import time
        import traceback

        import gradcli
        folder = crash_folder()
        os.makedirs(folder, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = os.path.join(folder, f"{stamp}-{os.getpid()}-{id(error) & 0xFFFF:04x}.txt")
        lines = [f"gradcli {gradcli.__version__}, Python {sys.version.split()[0]}, {sys.platform}",
                 "command: " + " ".join(sys.argv), "",
                 "".join(traceback.format_exception(error))]
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines))
        _remove_old(folder)
        return path
    except Exception:  # (no state directory, a full disk: the one-line report still says what failed)
        return None


def _remove_old(folder: str) -> None:
    names = sorted(name for name in os.listdir(folder) if name.endswith(".txt"))
    for name in names[:-KEEP]:
        try:
            os.remove(os.path.join(folder, name))
        except OSError:
            pass
