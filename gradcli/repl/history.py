"""Where the REPL keeps its history: the user's state directory (platformdirs).

On Linux that is ``$XDG_STATE_HOME/gradcli/history`` (``~/.local/state/...``).
"""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory


def history_path() -> Path:
    from platformdirs import user_state_path
    return user_state_path("gradcli", appauthor=False) / "history"


def open_history(path: Path | None = None) -> tuple[History, str | None]:
    """The persistent history, or an in-memory one and the reason when the file cannot be used."""
    path = path or history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError as error:
        return InMemoryHistory(), f"history is not saved: cannot use {path}: {error.strerror or error}"
    return FileHistory(str(path)), None
