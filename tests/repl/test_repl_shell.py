"""The prompt_toolkit shell, driven through a pipe input with a dummy output."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from repl_helpers import TUTORIAL, Captured, masked

from gradcli.repl.completion import ScriptCompleter
from gradcli.repl.shell import run_shell

UP, DOWN, RIGHT, LEFT, ESCAPE = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b"
CTRL_C, CTRL_D, CTRL_R, HOME, END, DELETE = "\x03", "\x04", "\x12", "\x1b[H", "\x1b[F", "\x1b[3~"


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return tmp_path / "state" / "history"


class _BackgroundCounter:
    """Counts finished runs of a background job of the shell (completion, auto-suggestion), so
    keys that depend on its result can wait for it instead of guessing how long it takes on a
    loaded machine."""

    def __init__(self) -> None:
        self.finished = 0
        self.changed = threading.Condition()

    def done(self) -> None:
        with self.changed:
            self.finished += 1
            self.changed.notify_all()

    def wrap_generator(self, original: Any) -> Any:
        def get_completions(completer: Any, document: Any, event: Any) -> Any:
            try:
                yield from original(completer, document, event)
            finally:
                self.done()
        return get_completions

    def wrap_function(self, original: Any) -> Any:
        def get_suggestion(suggester: Any, buffer: Any, document: Any) -> Any:
            try:
                return original(suggester, buffer, document)
            finally:
                self.done()
        return get_suggestion

    def wait_beyond(self, count: int, timeout: float = 10.0) -> None:
        with self.changed:
            self.changed.wait_for(lambda: self.finished > count, timeout)


def drive(keys: str, history: Path, *later: str) -> Captured:
    """Type ``keys`` into a shell, then each of ``later`` after a pause (completion and
    auto-suggestion run in the background, so keys after a Tab wait until a completion has
    finished, and a Right arrow until a suggestion has); Ctrl-D at the end leaves."""
    repl = Captured()
    chunks = [keys, *later]
    chunks[-1] += CTRL_D
    done = threading.Event()
    stuck: list[bool] = []
    completions, suggestions = _BackgroundCounter(), _BackgroundCounter()
    original = ScriptCompleter.get_completions, AutoSuggestFromHistory.get_suggestion
    ScriptCompleter.get_completions = completions.wrap_generator(original[0])  # type: ignore[method-assign]
    AutoSuggestFromHistory.get_suggestion = suggestions.wrap_function(original[1])  # type: ignore[method-assign]
    with create_pipe_input() as pipe:
        seen = completions.finished, suggestions.finished
        pipe.send_text(chunks[0])

        def type_slowly() -> None:
            nonlocal seen
            previous = chunks[0]
            for chunk in chunks[1:]:
                if previous.endswith("\t"):
                    completions.wait_beyond(seen[0])
                if chunk.startswith(RIGHT):
                    suggestions.wait_beyond(seen[1])
                time.sleep(1.0)  # (long enough on a loaded machine: the history loads in the background)
                seen = completions.finished, suggestions.finished
                pipe.send_text(chunk)
                previous = chunk
            if not done.wait(10):   # still running: the keys left it mid-entry; end it, fail the test
                stuck.append(True)
                pipe.send_text(CTRL_C + CTRL_D)
        typist = threading.Thread(target=type_slowly)
        typist.start()
        try:
            status = run_shell(repl.console, history_file=history, input=pipe, output=DummyOutput())
        finally:
            ScriptCompleter.get_completions, AutoSuggestFromHistory.get_suggestion = original  # type: ignore
            done.set()
            typist.join()
    assert not stuck, "the shell was still waiting for input after the last key"
    assert status == 0
    return repl


def test_enter_runs_a_complete_line(history):
    assert drive("x = 6 * 7\rx\r", history).take() == ("42\n", "")


def test_a_block_is_indented_for_you_and_an_empty_line_runs_it(history):
    repl = drive("for i in range(3):\rif i:\ri\r\r", history)
    assert repl.take() == ("1\n2\n", "")


def test_indentation_typed_by_hand_replaces_the_automatic_one(history):
    repl = drive("for i in range(2):\r    if i:\r        i * 10\r    i\r\r", history)
    assert repl.take() == ("0\n10\n1\n", "")


def test_backspace_in_the_indentation_removes_one_level_and_tab_adds_one(history):
    BACKSPACE = "\x7f"
    repl = drive(f"for i in range(2):\rif i:\ri\r{BACKSPACE}i + 10\r\r"
                 f"if True:\r{BACKSPACE}\t'tab'\r\r", history)
    assert repl.take() == ("10\n1\n11\n'tab'\n", "")


def test_enter_inside_brackets_continues_the_entry(history):
    assert drive("x = (1,\r2)\rx\r", history).take() == ("(1, 2)\n", "")


def test_enter_inside_a_complete_line_runs_all_of_it(history):
    assert drive(f"x = ones(2)\rx.sum(){LEFT * 4}\r", history).take() == ("tensor(2.)\n", "")


def test_enter_after_editing_a_recalled_line_in_the_middle_runs_it(history):
    drive("value = 2\rvalue * 10\r", history)
    # (keys that recall come after a pause: each prompt reads the history again, in the background)
    # value * 10 -> value * 100, and Enter before its end
    repl = drive("value = 2\r", history, f"{UP}{UP}{LEFT}0\r")
    assert repl.take() == ("200\n", "")


def test_enter_after_ctrl_r_runs_the_entry_found(history):
    drive("first = 5\rfirst + 1\rsecond = 7\r", history)
    repl = drive("first = 5\r", history, f"{CTRL_R}first +\r")   # readline runs what Ctrl-R found, too
    assert repl.take() == ("6\n", "")
    # Esc keeps it to edit, the cursor where the match starts: Enter there runs the edited entry
    repl = drive("first = 5\r", history, f"{CTRL_R}first +{ESCAPE}", f"{END} + 1{HOME}\r")
    assert repl.take() == ("7\n", "")


def test_enter_inside_a_recalled_block_runs_it(history):
    drive("for i in range(2):\ri\r\r", history)
    # Up recalls the block with the cursor at its end; Home goes to the start of its last line
    repl = drive(f"{UP}{UP}{END}{LEFT * 3}3{DELETE}{HOME}\r", history)   # range(2) -> range(3), Enter
    assert repl.take() == ("0\n1\n2\n", "")


def test_enter_inside_an_unfinished_line_goes_on_at_its_end(history):
    repl = drive(f"x = (1,{LEFT * 3}\r2)\rx\r", history)
    assert repl.take() == ("(1, 2)\n", "")
    repl = drive(f"for i in range(2):{HOME}\ri\r\r", history)   # the header is not broken in two
    assert repl.take() == ("0\n1\n", "")


def test_enter_at_the_end_of_a_line_above_the_last_adds_a_line_there(history):
    repl = drive(f"for i in range(2):\ri", history, f"{UP}{END}\rj = i * 10\r", f"{DOWN}{END}\r", "\r")
    assert repl.take() == ("0\n1\n", "")


def test_alt_enter_breaks_the_line_at_the_cursor(history):
    # a complete line: Alt-Enter adds a second line to the entry instead of running it
    assert drive(f"a = 1{ESCAPE}\ra + 1\r", history).take() == ("2\n", "")
    # in the middle of a line it breaks the line in two
    assert drive(f"x = 3; x * 2{LEFT * 5}{ESCAPE}\r\r", history).take() == ("6\n", "")


def test_an_error_keeps_the_variables(history):
    out, err = drive("a = tensor([1., 2.], grad)\ra.backward()\ra.requires_grad\r", history).take()
    assert out == "True\n"
    assert err.startswith("<stdin>:1:1: RuntimeError: grad can be implicitly created only for scalar outputs")


def test_ctrl_c_clears_the_input(history):
    out, err = drive(f"x = 1\rx = 2{CTRL_C}x\r", history).take()
    assert (out, err) == ("1\n", "KeyboardInterrupt\n")


def test_quit_command_ends_the_shell(history):
    repl = drive(":quit\r'not run'\r", history)
    assert repl.console.finished and repl.take() == ("", "")


def test_tab_completes_names_attributes_and_keywords(history):
    # the second Tab on `requi` picks the first choice, the keyword argument
    repl = drive("zebra = 5\rzeb\t", history, "\rt = ones(2)\rt.requires_gr\t", "\rones(2, requi\t",
                 "\t", "True)\r")
    assert repl.take() == ("5\nFalse\ntensor([1., 1.], requires_grad=True)\n", "")


def test_history_survives_a_restart_and_up_recalls(history):
    drive("a = 41\rfor i in range(2):\ri\r\r", history)
    assert history.exists()
    # Up recalls the block with the cursor at its end, Up again moves within it, a third goes on
    repl = drive(f"{UP}{UP}{UP}\ra + 1\r", history)
    assert repl.take() == ("42\n", "")


def test_up_searches_by_the_typed_prefix(history):
    drive("alpha = 1\rbeta = 2\rgamma = 3\r", history)
    repl = drive(f"al{UP}\ralpha\r", history)
    assert repl.take() == ("1\n", "")


def test_blocks_are_stored_whole_without_the_closing_blank_line(history):
    drive("for i in range(2):\ri\r\r", history)
    assert "+for i in range(2):\n+    i\n" in history.read_text()


def test_right_arrow_takes_the_suggestion_from_history(history):
    drive("value = 12345\r", history)
    repl = drive("value = 1", history, f"{RIGHT}\rvalue\r")   # the suggestion comes in the background
    assert repl.take() == ("12345\n", "")


def test_output_without_a_newline_does_not_share_the_prompt_line(history):
    repl = drive("print(1, end='')\r2\r", history)
    assert repl.take()[0] == "1\n2\n"


def test_the_tutorial_typed_into_the_shell(history):
    """Each line typed as a person would (indentation included, an empty line after each block):
    the same output as pushing the lines to the core."""
    lines = TUTORIAL.read_text().splitlines()
    typed = []
    for index, line in enumerate(lines):
        typed.append(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.startswith(" ") and not following.startswith(" "):
            typed.append("")   # close the block
    repl = drive("".join(line + "\r" for line in typed), history)
    expected = Captured()
    for line in lines:
        expected.push(line)
    expected.console.flush()
    out, err = repl.take()
    assert err == ""
    assert masked(out) == masked(expected.take()[0])


def test_the_same_entry_twice_in_a_row_is_stored_once(history):
    drive("for i in range(1):\ri\r\r" + UP + "\r\r", history)
    assert history.read_text().count("+for i in range(1):") == 1
