"""The terminal front end: prompt_toolkit around the pure ``Console``.

History in the user's state directory with prefix search (Up) and Ctrl-R,
grey suggestions from it, Tab completion, highlighting as you type,
multi-line entries with ``... `` continuation and an Enter that knows about
brackets and blocks.  The engine loads in a background thread while the
first line is typed, so the prompt appears at once.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.formatted_text import FormattedText, StyleAndTextTuples
from prompt_toolkit.history import History
from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.shortcuts import CompleteStyle
from prompt_toolkit.styles import Style

import gradcli
from gradcli.repl.completion import ScriptCompleter
from gradcli.repl.core import PS1, PS2, Console
from gradcli.repl.help_text import BANNER, IMPORTED
from gradcli.repl.highlight import ScriptLexer
from gradcli.repl.history import open_history
from gradcli.repl.keys import repl_bindings

STYLE = Style.from_dict({
    "prompt": "ansigreen bold",
    "continuation": "ansigreen",
    "keyword": "ansimagenta bold",
    "constant": "ansicyan",
    "builtin": "ansiblue",
    "number": "ansicyan",
    "string": "ansiyellow",
    "comment": "ansibrightblack italic",
    "command": "ansiyellow bold",
    "matching-bracket.cursor": "bold",
    "matching-bracket.other": "bold underline",
    "auto-suggestion": "ansibrightblack",
    "completion-menu": "bg:ansibrightblack ansiwhite",
    "completion-menu.completion.current": "bg:ansiwhite ansiblack",
    "completion-menu.meta.completion": "bg:ansibrightblack ansiwhite",
    "completion-menu.meta.completion.current": "bg:ansiwhite ansiblack",
    "banner": "ansibrightblack",
})


def build_prompt(console: Console, *, history: History, no_color: bool = False,
                 input: Any = None, output: Any = None) -> PromptSession:
    """The PromptSession the shell reads entries with (``input``/``output`` for tests)."""
    return PromptSession(
        message=[("class:prompt", PS1)],
        prompt_continuation=_continuation,
        multiline=True,
        key_bindings=repl_bindings(console),
        history=history,
        enable_history_search=True,
        auto_suggest=AutoSuggestFromHistory(),
        completer=ScriptCompleter(console),
        complete_style=CompleteStyle.COLUMN,
        lexer=ScriptLexer(_known_names(console)),
        input_processors=[HighlightMatchingBracketProcessor()],
        style=STYLE,
        include_default_pygments_style=False,
        color_depth=ColorDepth.MONOCHROME if no_color else None,
        search_ignore_case=True,
        enable_suspend=True,
        enable_open_in_editor=True,
        tempfile_suffix=".ag",
        input=input,
        output=output,
    )


def run_shell(console: Console, *, no_color: bool = False, history_file: Path | None = None,
              input: Any = None, output: Any = None) -> int:
    """Read and run entries until Ctrl-D or :quit; the exit status (0)."""
    history, problem = open_history(history_file)
    prompt = build_prompt(console, history=history, no_color=no_color, input=input, output=output)
    threading.Thread(target=_warm_up, args=(console,), daemon=True).start()
    banner = BANNER.format(version=gradcli.__version__, torch=gradcli.TORCH_VERSION.split("+")[0])
    banner += "\n" + IMPORTED
    print_formatted_text(FormattedText([("class:banner", banner)]), style=STYLE, output=prompt.output)
    if problem:
        console.stderr.write(f"gradcli: {problem}\n")
    while not console.finished:
        console.stdout.end_line()   # output without a final newline must not share the prompt's line
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            console.interrupt()
            continue
        except EOFError:
            break
        try:  # Ctrl-C while it runs: the session reports where, on a line of its own
            console.run_entry(text)
        except KeyboardInterrupt:
            console.report_interrupt(echoed=True)
        except Exception as error:  # a bug in gradcli: say so and keep the session
            from gradcli.lang.diagnostics import Reporter
            Reporter(console.stderr).internal_error(error, None)
    return 0


def _continuation(width: int, line_number: int, wrap_count: int) -> StyleAndTextTuples:
    if wrap_count:  # a long line wrapped by the terminal: no prompt, as in Python's REPL
        return [("", " " * width)]
    return [("class:continuation", PS2.rjust(width))]


def _known_names(console: Console) -> Callable[[], Any]:
    """The names the lexer shows as known: builtins and torch's, once the engine has loaded."""
    def names() -> Any:
        session = console.loaded_session
        return session.builtins if session is not None else ()
    return names


def _warm_up(console: Console) -> None:
    try:
        console.warm_up()
    except Exception:  # the same failure shows, and is reported, at the first entry
        pass
