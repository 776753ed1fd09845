"""``:help``: the language in one page, with examples, then the commands and keys."""

from __future__ import annotations

import re
from typing import Iterable

_HEADING = re.compile(r"^([A-Z]\w*:)", re.MULTILINE)

BANNER = "gradcli {version}: PyTorch {torch} autograd, line by line. :help for help, Ctrl-D to leave."
# The banner's second line: what the REPL imported before the first prompt (core.PRELUDE).
IMPORTED = "Imported: torch, torch.nn as nn, torch.nn.functional as F, torch.optim as optim, math."

LANGUAGE = """\
Type Python with PyTorch's names; the value of a bare expression is shown.

  >>> x = torch.ones(2, 2, requires_grad=True)
  >>> out = ((x + 2) ** 2).mean()
  >>> out.backward()
  >>> x.grad
  tensor([[1.5000, 1.5000],
          [1.5000, 1.5000]])

Names:       torch, nn (torch.nn), F (torch.nn.functional), optim
             (torch.optim) and math are imported already, here and after
             :reset; :save writes the imports a script needs.  torch
             functions work without the prefix too: ones randn exp mean ...
Shorthand:   ones(2, 2, grad) means requires_grad=True; grad(y, x) is
             torch.autograd.grad(y, x); every Tensor method has a function
             form: mean(y), backward(out), t(x).  sum max min abs round of a
             Tensor are torch's, not Python's.
Statements:  = and += (in place on tensors), if/elif/else, for, while, def,
             lambda, with torch.no_grad():, assert, del, comprehensions,
             f-strings.  No classes, try, files or imports beyond torch/math.
Blocks:      a line ending in ':' opens a block; an empty line runs it.

  >>> x = tensor(2., grad)
  >>> for k in range(2):
  ...     y = x ** 3
  ...     y.backward()
  ...
  >>> x.grad                     # gradients add up over the two backward()s
  tensor(24.)
"""

KEYS = """\
Keys:        Tab completes names, torch., x.<attribute> and keyword= in calls.
             Up/Down walk the history (type a prefix first to search by it),
             Ctrl-R searches it (Enter runs what it found, Esc keeps it to
             edit), Right arrow takes the grey suggestion.  Enter runs the
             input wherever the cursor is, unless it is unfinished (inside
             brackets, after a ':'; an empty line ends a block); Alt-Enter
             (Esc Enter) starts a new line at the cursor.  Ctrl-C clears the
             input or stops a running loop (your variables stay); Ctrl-D on
             an empty line leaves.
"""


def render_help(commands: Iterable, *, color: bool = False) -> str:
    """The help page; headings in bold on a terminal."""
    commands = list(commands)
    width = max([12] + [len(command.usage) + 1 for command in commands])   # (the usages in one column)
    lines = [LANGUAGE, "Commands:"]
    for command in commands:
        lines.append(f"  {command.usage:<{width}} {command.summary}")
    lines.append("")
    lines.append(KEYS)
    text = "\n".join(lines)
    if color:
        text = _HEADING.sub("\x1b[1m\\1\x1b[0m", text)
    return text
