"""The REPL's history: entries in a file in the user's state directory (platformdirs).

On Linux that is ``$XDG_STATE_HOME/gradcli/history`` (``~/.local/state/...``).
An entry is stored without the empty line that closed its block, so a
recalled block is ready to edit or to run with one more Enter.
"""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory


class _Entries(History):
    def append_string(self, string: str) -> None:
        lines = string.split("\n")
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        entry = "\n".join(lines)
        recent = self.get_strings()
        if entry.strip() and (not recent or recent[-1] != entry):
            super().append_string(entry)


class EntryFileHistory(_Entries, FileHistory):
    """The persistent history."""


class EntryMemoryHistory(_Entries, InMemoryHistory):
    """The fallback when the history file cannot be used."""


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
        return EntryMemoryHistory(), f"history is not saved: cannot use {path}: {error.strerror or error}"
    return EntryFileHistory(str(path)), None
