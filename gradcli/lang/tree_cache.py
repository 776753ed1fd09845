"""Parse trees kept on disk, so that running an unchanged script needs neither Lark nor its parser.

Importing Lark, loading the LALR parser from its cached tables and parsing take about 45 ms of
a run; reading back the tree the last run made takes under 1 ms.  The stored tree is made of
gradcli's own classes (gradcli.lang.syntax_tree), so reading it imports no Lark: a run of a
cached script never loads Lark at all, as CPython's ``__pycache__`` spares it the compiler.

A tree is stored under the hash of everything that decides it: the stored format, gradcli's
version, the grammar, the Lark that parsed it (its ``__init__.py``, found without importing
it), the start symbol and the text.  So an edited script, another gradcli or another Lark is
parsed again, never served a stale tree.  Only successful parses are kept (errors are reported
by parsing again, so they read exactly as on a first run); the folder is trimmed to its newest
``LIMIT`` trees.  Any trouble with the folder or a file in it only means parsing.
"""

from __future__ import annotations

import functools
import os
import pickle
from typing import Any, Callable

try:  # the built-in BLAKE2: hashlib would load OpenSSL first (~2 ms of every start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython builds it unless told not to
    from hashlib import blake2b

# Trees kept; past it the oldest go (an f-string field's is a few hundred bytes, a script's a few
# kB to a few hundred kB).  Even a short text is worth keeping: parsing it means loading the parser.
LIMIT = 2000
# Part of every key: bump it when what a stored file holds changes (gradcli.lang.syntax_tree).
FORMAT = b"gradcli-tree-2"

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
    except Exception:  # missing, unreadable, truncated or not ours: parse as if it were not there
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
    digest = blake2b(_salt_bytes(), digest_size=16)
    digest.update(b"\0" + start.encode() + b"\0" + text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _salt_bytes() -> bytes:
    """What every key shares: the format, gradcli's version, the grammar, the code that reads
    tokens and builds trees (a text it now refuses must not come back from the cache), and
    Lark's identity."""
    global _salt
    if _salt is None:
        from gradcli import __version__
        from gradcli.lang.grammar_loader import grammar_path
        parts = [FORMAT, __version__.encode()]
        here = os.path.dirname(os.path.abspath(__file__))
        for path in (grammar_path(), *(os.path.join(here, name) for name in _TREE_CODE)):
            with open(path, "rb") as code:
                parts.append(code.read())
        _salt = b"\0".join([*parts, _lark_identity()])
    return _salt


# the modules (next to this one) whose code decides which tree a text parses to
_TREE_CODE = ("indenter.py", "lalr_driver.py", "positions.py", "syntax_tree.py")


def _lark_identity() -> bytes:
    """The text of Lark's ``__init__.py`` (it holds its version), read without importing Lark."""
    from importlib.machinery import PathFinder
    try:
        spec = PathFinder.find_spec("lark")
        with open(spec.origin, "rb") as init:  # type: ignore[union-attr, arg-type]
            return init.read()
    except (AttributeError, TypeError, OSError):  # no Lark on the path: the parse will say so
        return b""


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


def _store(folder: str, path: str, tree: Any) -> None:
    try:
        data = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
        partial = f"{path}.{os.getpid()}.part"
        with open(partial, "wb") as out:
            out.write(data)
        os.replace(partial, path)  # readers see the whole file or none
        _trim(folder)
    except (OSError, pickle.PicklingError, RecursionError, TypeError, AttributeError):
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
