"""Load the Lark parser for ``grammar/gradcli.lark`` once, from a cache.

Building LALR tables takes ~0.3 s; loading them from Lark's pickle cache takes a
few milliseconds, which keeps ``gradcli run`` inside its start-up budget.  The
cache lives in the user's cache directory and Lark checks it against a hash of
the grammar and options, so an edited grammar rebuilds it.

Lark itself is imported only when the parser is first asked for: a run whose
parse trees are all cached (gradcli.lang.tree_cache) never loads it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Lark

# os.path rather than pathlib: pathlib (with the urllib.parse and ipaddress it
# imports) would cost ~3 ms of every start, and nothing else at start-up needs it.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# Inside the wheel the grammar sits at gradcli/grammar/; in a source checkout
# at the repository's top level.
_GRAMMAR_CANDIDATES = (
    os.path.join(_PACKAGE, "grammar", "gradcli.lark"),
    os.path.join(os.path.dirname(_PACKAGE), "grammar", "gradcli.lark"),
)


def grammar_path() -> str:
    """The grammar file (its text is also part of the tree cache's key)."""
    for candidate in _GRAMMAR_CANDIDATES:
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError("gradcli.lark not found next to the gradcli package")


def _cache_file(text: str) -> str | bool:
    """A writable cache path, or True for Lark's own temp-dir cache.

    The file is named after the grammar's hash, so that two gradcli versions (or checkouts) with
    different grammars do not keep replacing each other's tables."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "gradcli")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return True
    if not os.access(folder, os.W_OK):
        return True
    import hashlib

    import lark
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return os.path.join(folder, f"parser-lark{lark.__version__}-{digest}.cache")


_parser: Lark | None = None


def get_parser() -> Lark:
    """The one Lark LALR parser (start symbols ``file_input`` and ``field_input``)."""
    global _parser
    if _parser is None:
        with open(grammar_path(), encoding="utf-8") as grammar:
            text = grammar.read()
        cache = _cache_file(text)
        try:
            _parser = _build(text, cache)
        except OSError:
            # an unreadable or unwritable cache must never stop a run
            _parser = _build(text, False if cache is True else True)
    return _parser


def _build(text: str, cache: str | bool) -> Lark:
    from lark import Lark

    from gradcli.lang.indenter import Indenter
    from gradcli.lang.positions import install
    install()   # (the same positions, computed only where a reduction can change them)
    return Lark(
        text,
        parser="lalr",
        lexer="basic",
        postlex=Indenter(),
        start=["file_input", "field_input"],
        propagate_positions=True,
        maybe_placeholders=True,
        cache=cache,
    )

