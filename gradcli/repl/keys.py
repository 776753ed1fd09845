"""Key bindings of the shell: Enter that knows about brackets and blocks, indentation keys.

* Enter runs the entry when it is complete, and otherwise opens a new line
  indented like the last one (one level deeper after a ':', one less after
  ``return``/``pass``/``break``/``continue``).  Where the cursor is does not
  matter, as in Python's REPL and IPython: Enter never breaks a line in two.
  With the cursor inside a line (say after Up or Ctrl-R and an edit), it runs
  an entry that can run (a block that lacks only its closing empty line
  included) and otherwise goes on at the end of the entry.  Only at the end of
  a line above the last does it open a line there, to add to a block.  With a
  completion highlighted it takes the completion; during Ctrl-R it takes the
  entry found and then does the same (readline runs it at once, too).
* Esc Enter (Alt-Enter) breaks the line at the cursor on purpose.
* Tab at the start of a line indents, Backspace there removes one level.
* Typing a space on a line that holds only the indentation Enter put there
  replaces it: whoever types their own indentation (as in Python's classic
  REPL) gets exactly what they type, not double.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, has_focus, is_searching
from prompt_toolkit.search import accept_search
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

if TYPE_CHECKING:
    from gradcli.repl.core import Console

INDENT = "    "
_ENDS_BLOCK = re.compile(r"^\s*(pass|break|continue|return\b.*)\s*$")


def repl_bindings(console: "Console") -> KeyBindings:
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)
    # (text, cursor) right after Enter inserted an indentation; None once anything changed
    auto_indented: list[tuple[str, int] | None] = [None]

    def open_line(buffer: Buffer) -> None:
        new_line(buffer)
        auto_indented[0] = (buffer.text, buffer.cursor_position) if buffer.document.current_line else None

    @Condition
    def untouched_auto_indent() -> bool:
        buffer = get_app().current_buffer
        return auto_indented[0] == (buffer.text, buffer.cursor_position)

    @Condition
    def at_indentation() -> bool:
        """Only spaces (or nothing) between the start of the line and the cursor."""
        return get_app().current_buffer.document.current_line_before_cursor.strip() == ""

    @Condition
    def in_indentation() -> bool:
        before = get_app().current_buffer.document.current_line_before_cursor
        return before != "" and before.strip() == ""

    def run_or_continue(buffer: Buffer) -> None:
        document = buffer.document
        if document.current_line_after_cursor.strip():   # inside a line: never break it
            if console.can_run(buffer.text):
                buffer.validate_and_handle()
            else:   # go on where the entry ends (on its last line if that is still empty)
                buffer.cursor_position = len(buffer.text)
                if buffer.document.current_line.strip():
                    open_line(buffer)
        elif document.text_after_cursor.strip():          # at the end of a line above the last
            open_line(buffer)
        elif console.needs_more(buffer.text):
            open_line(buffer)
        else:
            buffer.validate_and_handle()

    @bindings.add("enter", filter=editing)
    def enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)
            return
        run_or_continue(buffer)

    @bindings.add("enter", filter=is_searching)
    def enter_while_searching(event: KeyPressEvent) -> None:
        accept_search()
        run_or_continue(event.app.current_buffer)

    @bindings.add(" ", filter=editing & untouched_auto_indent)
    def own_indentation(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        buffer.delete_before_cursor(len(buffer.document.current_line_before_cursor))
        buffer.insert_text(" ")

    @bindings.add("escape", "enter", filter=editing)
    def break_line(event: KeyPressEvent) -> None:
        open_line(event.current_buffer)

    @bindings.add("tab", filter=editing & at_indentation)
    def indent(event: KeyPressEvent) -> None:
        column = len(event.current_buffer.document.current_line_before_cursor)
        event.current_buffer.insert_text(" " * (len(INDENT) - column % len(INDENT)))

    @bindings.add("backspace", filter=editing & in_indentation)
    def dedent(event: KeyPressEvent) -> None:
        column = len(event.current_buffer.document.current_line_before_cursor)
        event.current_buffer.delete_before_cursor(column % len(INDENT) or len(INDENT))

    return bindings


def new_line(buffer: Buffer) -> None:
    """Break the line at the cursor; the new line gets the indentation the block needs."""
    line = buffer.document.current_line_before_cursor
    buffer.insert_text("\n" + next_indent(line))


def next_indent(line: str) -> str:
    indent = line[:len(line) - len(line.lstrip())]
    code = line.split("#", 1)[0].rstrip()
    if code.endswith(":"):
        return indent + INDENT
    if _ENDS_BLOCK.match(code):
        return indent[:-len(INDENT)] if indent.endswith(INDENT) else ""
    return indent
