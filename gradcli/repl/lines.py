"""The REPL over plain lines, for stdin that is not a terminal.

    printf 'x = ones(2, grad)\\nx\\n' | gradcli repl

Same semantics as the terminal front end, without prompt_toolkit: each line
goes to ``Console.push`` with its number, so that errors name the line of the
whole input (``<stdin>:7:1``); results and errors are printed, prompts are not
(unless stdin is a terminal and stdout is not, as with ``gradcli | tee``).
"""

from __future__ import annotations

from typing import TextIO

from gradcli.repl.core import Console


def read_lines(console: Console, stdin: TextIO, prompts: TextIO | None = None) -> int:
    """Feed ``stdin`` to ``console`` until EOF or ``:quit``.  Exit status: 1 if anything failed."""
    number = 0
    while not console.finished:
        if prompts is not None:
            console.stdout.end_line()
            prompts.write(console.prompt)
            prompts.flush()
        try:
            line = stdin.readline()
            if not line:  # end of input: what is left in the buffer still runs
                if prompts is not None:
                    prompts.write("\n")
                console.flush()
                break
            number += 1
            if number == 1 and line.startswith("\ufeff"):
                line = line[1:]   # a byte order mark, as Python reads piped input
            console.push(line.rstrip("\r\n"), number)
        except KeyboardInterrupt:   # the terminal, if any, echoed ^C
            console.interrupt(echoed=True)
    return 1 if console.failures else 0
