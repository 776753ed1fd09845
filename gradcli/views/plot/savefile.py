"""Where ``plt.savefig(name)`` may write: only inside the folder ``--plot-dir DIR`` names.

A script otherwise reaches no file (see gradcli.lang.safety), so this is a sandbox: without the
flag every save is refused; with it, ``name`` must be relative, without ``..``, and every folder
on the way and the file itself must not be a symbolic link.  The folders are opened one by one
relative to the one before (``dir_fd``, ``O_NOFOLLOW``), so a link swapped in while checking
cannot lead the write elsewhere.  Folders are never created.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from gradcli.lang.errors import ScriptFileNotFoundError, ScriptPermissionError, ScriptTypeError, ScriptValueError

FORMATS = ("png", "svg")


def file_format(name: Any, format: Any = None) -> tuple[str, str]:
    """(name, "png" | "svg"): the format from ``format=`` or the name's extension; a name without
    one gets ``.png`` added, as matplotlib's default savefig.format does."""
    if not isinstance(name, str):
        raise ScriptTypeError(f"gradcli's plt.savefig takes a file name (a str), not {type(name).__name__}")
    if not name or name.endswith(("/", "\\")) or os.path.basename(name) in (".", ".."):
        raise ScriptValueError(f"{name!r} is not a file name")
    stem, extension = os.path.splitext(name)
    chosen = format if format is not None else extension[1:] if extension else "png"
    if not isinstance(chosen, str) or chosen.lower() not in FORMATS:
        raise ScriptValueError(f"Format {chosen!r} is not supported (supported formats: png, svg)")
    chosen = chosen.lower()
    if not extension:
        name = f"{name}.{chosen}"
    return name, chosen


def write_in_plot_dir(plot_dir: Optional[str], name: str, content: bytes) -> str:
    """Write ``content`` to ``name`` inside ``plot_dir``; the path written.  Refusals are the
    script's PermissionError / FileNotFoundError, naming the flag."""
    if plot_dir is None:
        raise ScriptPermissionError(f"plt.savefig({name!r}) is refused: a script may write plots only inside "
                                    "the folder given by --plot-dir DIR (run gradcli with --plot-dir)")
    parts = _parts(name)
    try:
        folder = os.open(plot_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        raise ScriptFileNotFoundError(f"the --plot-dir folder {plot_dir!r} does not exist") from None
    try:
        for depth, part in enumerate(parts[:-1], 1):
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            except OSError:
                if os.path.islink(os.path.join(plot_dir, *parts[:depth])):
                    raise _outside(name, "a symbolic link") from None
                raise ScriptFileNotFoundError(f"No such folder in --plot-dir {plot_dir!r}: "
                                              f"{os.path.dirname(name)!r}") from None
            os.close(folder)
            folder = inner
        try:
            handle = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644,
                             dir_fd=folder)
        except OSError as error:
            if os.path.islink(os.path.join(plot_dir, *parts)):
                raise _outside(name, "a symbolic link") from None
            raise ScriptPermissionError(f"cannot write {name!r} in --plot-dir {plot_dir!r}: "
                                        f"{error.strerror}") from None
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
    finally:
        os.close(folder)
    return os.path.join(plot_dir, *parts)


def _parts(name: str) -> list[str]:
    if not name or "\0" in name:
        raise ScriptValueError(f"{name!r} is not a file name")
    if os.path.isabs(name) or name.startswith("~"):
        raise _outside(name, "an absolute path")
    parts = [part for part in name.replace("\\", "/").split("/") if part not in ("", ".")]
    if ".." in parts:
        raise _outside(name, "a path that leaves the folder with '..'")
    if not parts:
        raise ScriptValueError(f"{name!r} is not a file name")
    return parts


def _outside(name: str, what: str) -> Exception:
    return ScriptPermissionError(f"plt.savefig({name!r}) is refused: {what}; a script may write plots only "
                                 "inside the folder given by --plot-dir DIR, under a plain relative name")
