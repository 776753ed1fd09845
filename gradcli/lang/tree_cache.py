"""Parse trees kept on disk, so that running an unchanged script skips Lark altogether.

Building the LALR parser from its cached tables and parsing take about 35 ms of a 200 ms run;
unpickling the tree the last run made takes under 1 ms.  A tree is stored under the hash of
everything that decides it: the grammar, gradcli's and Lark's versions, the start symbol and
the text.  Only successful parses are kept (errors are reported by parsing again); the folder
is trimmed to its newest ``LIMIT`` trees.  Any trouble with the folder only means parsing.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
from typing import Any, Callable

# Trees kept; past it the oldest go (an f-string field's is a few hundred bytes, a script's a few
# kB to a few hundred kB).  Even a short text is worth keeping: parsing it means loading the parser.
LIMIT = 2000

_folder: str | None | bool = False  # False: not looked for yet; None: no usable folder
_salt: bytes | None = None


def cached_parse(text: str, start: str, parse: Callable[[], Any]) -> Any:
    """``parse()``'s tree for ``text``, from the cache when an earlier run stored it."""
    if os.environ.get("GRADCLI_NO_TREE_CACHE"):
        return parse()
    folder = _cache_folder()
    if folder is None:
        return parse()
    path = os.path.join(folder, _key(text, start) + ".tree")
    try:
        with open(path, "rb") as stored:
            return pickle.load(stored)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
        pass
    tree = parse()
    _store(folder, path, tree)
    return tree


def is_cached(text: str, start: str) -> bool:
    """Whether ``cached_parse`` of ``text`` will find its tree (and not need the parser)."""
    if os.environ.get("GRADCLI_NO_TREE_CACHE"):
        return False
    folder = _cache_folder()
    return folder is not None and os.path.exists(os.path.join(folder, _key(text, start) + ".tree"))


@functools.lru_cache(maxsize=64)  # a run asks for its script's key twice (is_cached, then the parse)
def _key(text: str, start: str) -> str:
    global _salt
    if _salt is None:
        import lark

        from gradcli import __version__
        from gradcli.lang.grammar_loader import grammar_path
        with open(grammar_path(), "rb") as grammar:
            _salt = b"\0".join([grammar.read(), lark.__version__.encode(), __version__.encode()])
    digest = hashlib.sha256(_salt)
    digest.update(b"\0" + start.encode() + b"\0" + text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def _cache_folder() -> str | None:
    global _folder
    if _folder is False:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "gradcli", "trees")
        try:
            os.makedirs(folder, exist_ok=True)
            _folder = folder if os.access(folder, os.W_OK) else None
        except OSError:
            _folder = None
    return _folder  # type: ignore[return-value]


def _token(kind: str, value: str, start: Any, line: Any, column: Any, end_line: Any, end_column: Any,
           end_pos: Any) -> Any:
    from lark import Token
    return Token(kind, value, start, line, column, end_line, end_column, end_pos)


class _TreePickler(pickle.Pickler):
    """Lark's Token pickles without its end positions (which the error carets use): keep them."""

    def reducer_override(self, obj: Any) -> Any:
        from lark import Token
        if type(obj) is Token:
            return _token, (obj.type, str(obj), obj.start_pos, obj.line, obj.column, obj.end_line,
                            obj.end_column, obj.end_pos)
        return NotImplemented


def _dumps(tree: Any) -> bytes:
    buffer = io.BytesIO()
    _TreePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(tree)
    return buffer.getvalue()


def _store(folder: str, path: str, tree: Any) -> None:
    try:
        data = _dumps(tree)
        partial = f"{path}.{os.getpid()}.part"
        with open(partial, "wb") as out:
            out.write(data)
        os.replace(partial, path)  # readers see the whole file or none
        _trim(folder)
    except (OSError, pickle.PicklingError, RecursionError, TypeError):
        pass


def _trim(folder: str) -> None:
    names = [name for name in os.listdir(folder) if name.endswith(".tree")]
    if len(names) <= LIMIT:
        return
    paths = sorted((os.path.join(folder, name) for name in names), key=os.path.getmtime)
    for stale in paths[:len(paths) - LIMIT]:
        try:
            os.remove(stale)
        except OSError:
            pass
