"""Tab completion from the live session.

* ``:he`` -> the commands; ``:load sam`` -> file names;
* ``x.gr``, ``torch.nn.functional.re`` -> the attributes a script may read
  (the same whitelist scripts see), so nothing offered fails when used;
* ``me`` -> variables, then builtins and torch names, then Python keywords;
* directly in a call's arguments, ``ones(2, re`` -> ``requires_grad=`` first.

Nothing typed is run: completion only looks up names and reads attributes of
values that already exist (with the engine's warnings muted).  Inside a
string or a comment nothing is offered.
"""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from gradcli.repl import commands
from gradcli.repl.highlight import CONSTANTS, KEYWORDS
from gradcli.repl.signatures import parameter_names
from gradcli.repl.variables import is_tensor

if TYPE_CHECKING:
    from gradcli.repl.core import Console

# A dotted name ending at the cursor, not itself after '.', ')' or a literal: `torch.nn.re`.
_CHAIN = re.compile(r"(?<![\w.)\]}'\"])((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)?\Z")
_CALLEE = re.compile(r"(?<![\w.)\]}'\"])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*\Z")
_GIVEN_KEYWORD = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")
_MISSING = object()


@dataclass(frozen=True)
class Candidate:
    text: str          # replaces the word before the cursor
    start: int         # where that word starts, counted back from the cursor (<= 0)
    meta: str = ""     # a few words shown beside it


def complete(before: str, console: "Console") -> list[Candidate]:
    """What could replace the word that ends at the cursor; ``before`` is the entry up to it."""
    if commands.is_command(before) and "\n" not in before:
        return _command_candidates(before.lstrip())
    scan = _scan(before)
    if scan.in_string or scan.in_comment:
        return []
    match = _CHAIN.search(before)
    if match is None:
        return []
    chain, word = match.group(1), match.group(2) or ""
    if chain:
        owner = _resolve(chain[:-1].split("."), console)
        if owner is _MISSING:
            return []
        return [Candidate(name, -len(word), meta) for name, meta in _attributes(owner)
                if _wanted(name, word)]
    found = _keyword_arguments(before[:len(before) - len(word)], scan, word, console)
    seen = {candidate.text.rstrip("=") for candidate in found}
    for name, meta in _names(console):
        if name not in seen and _wanted(name, word):
            seen.add(name)
            found.append(Candidate(name, -len(word), meta))
    return found


# ---------------------------------------------------------------- commands and files
def _command_candidates(text: str) -> list[Candidate]:
    word, space, argument = text[1:].partition(" ")
    if not space:
        return [Candidate(":" + name, -len(text), command.summary)
                for name, command in commands.COMMANDS.items() if name.startswith(word)]
    command = commands.find(word)
    if command is None or not command.argument:
        return []
    return _file_candidates(argument.lstrip())


def _file_candidates(partial: str) -> list[Candidate]:
    folder, slash, stem = partial.rpartition("/")
    directory = os.path.expanduser(folder or slash) or "."   # "a/b" -> a, "/b" -> /, "b" -> .
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.startswith(stem) and (stem.startswith(".") or not entry.startswith(".")):
            is_dir = os.path.isdir(os.path.join(directory, entry))
            found.append(Candidate(entry + ("/" if is_dir else ""), -len(stem),
                                   "folder" if is_dir else "file"))
    return found


# ---------------------------------------------------------------- names and attributes
def _names(console: "Console") -> Iterable[tuple[str, str]]:
    session = console.session
    for name, value in session.globals.items():
        yield name, describe(value)
    for name in sorted(session.builtins):
        yield name, describe(session.builtins[name])
    for name in sorted(KEYWORDS | CONSTANTS):
        yield name, "keyword"


def _attributes(owner: Any) -> list[tuple[str, str]]:
    from gradcli.lang.safety import Namespace, readable_attributes
    if isinstance(owner, Namespace):
        return [(name, describe(value)) for name, value in sorted(owner.members.items())]
    if isinstance(owner, type):
        return []
    cls = type(owner)
    return [(name, _attribute_kind(cls, name)) for name in sorted(readable_attributes(cls))]


def _attribute_kind(cls: type, name: str) -> str:
    value = inspect.getattr_static(cls, name, None)
    return "method" if inspect.isfunction(value) or inspect.ismethoddescriptor(value) else "attribute"


def _resolve(path: list[str], console: "Console") -> Any:
    """The value of ``a.b.c`` from the session, reading attributes as a script would; _MISSING if none."""
    from gradcli.lang.safety import get_attribute
    session = console.session
    head = path[0]
    value = session.globals.get(head, session.builtins.get(head, _MISSING))
    if value is _MISSING:
        return _MISSING
    with _quiet_engine():
        for name in path[1:]:
            try:
                value = get_attribute(value, name)
            except Exception:
                return _MISSING
    return value


def describe(value: Any) -> str:
    """``Tensor [2, 2]``, ``function``, ``module``, ``float``: beside a completion."""
    if is_tensor(value):
        try:
            return f"Tensor {list(value.shape)}"
        except Exception:
            return "Tensor"
    kind = type(value).__name__
    if callable(value) and not isinstance(value, type):
        return "function"
    return kind


def _wanted(name: str, word: str) -> bool:
    """Names starting with the word; private ones (``_saved_self``) only once '_' is typed."""
    return name.startswith(word) and (word.startswith("_") or not name.startswith("_"))


# ---------------------------------------------------------------- keyword arguments
def _keyword_arguments(before_word: str, scan: "_Scan", word: str,
                       console: "Console") -> list[Candidate]:
    """``name=`` for the call whose argument list the cursor is directly in."""
    if not scan.open_brackets or before_word[scan.open_brackets[-1]] != "(":
        return []
    paren = scan.open_brackets[-1]
    arguments = before_word[paren + 1:]
    if arguments.strip() and not arguments.rstrip().endswith(","):
        return []
    callee = _CALLEE.search(before_word[:paren])
    if callee is None:
        return []
    function = _resolve(callee.group(1).split("."), console)
    if function is _MISSING or not callable(function):
        return []
    given = set(_GIVEN_KEYWORD.findall(arguments))
    return [Candidate(name + "=", -len(word), "keyword argument")
            for name in parameter_names(function)
            if name.startswith(word) and name not in given]


@dataclass
class _Scan:
    open_brackets: list[int]   # positions of brackets still open at the cursor
    in_string: bool
    in_comment: bool


def _scan(text: str) -> _Scan:
    """Brackets, strings and comments up to the cursor (enough of Python's lexer for completion)."""
    stack: list[int] = []
    quote = ""
    index = 0
    in_comment = False
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = ""
                continue
            if char == "\n" and len(quote) == 1:
                quote = ""
        elif in_comment:
            in_comment = char != "\n"
        elif char == "#":
            in_comment = True
        elif char in "'\"":
            quote = text[index:index + 3] if text[index:index + 3] in ("'''", '"""') else char
            index += len(quote)
            continue
        elif char in "([{":
            stack.append(index)
        elif char in ")]}" and stack:
            stack.pop()
        index += 1
    return _Scan(stack, bool(quote), in_comment)


class _quiet_engine:
    """Reading ``y.grad`` of a non-leaf warns in PyTorch; completion must not print that."""

    def __enter__(self) -> None:
        try:
            from gradcli.engine import warnings as engine_warnings
        except ImportError:
            engine_warnings = None
        self.module = engine_warnings
        if engine_warnings is not None:
            engine_warnings.set_warning_handler(lambda category, message: None)

    def __exit__(self, *exc_info: Any) -> None:
        if self.module is not None:
            self.module.set_warning_handler(None)


class ScriptCompleter(Completer):
    """prompt_toolkit's view of ``complete``."""

    def __init__(self, console: "Console") -> None:
        self.console = console

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        try:
            found = complete(document.text_before_cursor, self.console)
        except Exception:  # a completion bug must never cost the user their input
            return
        for candidate in found:
            yield Completion(candidate.text, start_position=candidate.start, display_meta=candidate.meta)
