"""Known findings: the failure classes the fuzzer finds that another helper of issue 14 is fixing.

Issue 14 has five helpers (notes/owners14.md); the fuzzer's (deliverable 5) finds what the
others' parts (deliverables 1-4 and the issue's paragraphs) still let through.  Each entry below
is one exact class -- a kind of Finding, a pattern its detail matches (an internal error's detail
ends with ``@ gradcli/FILE:FUNCTION``, the innermost gradcli frame, which says whose part it is),
and the smallest program that shows it.  The default fuzz run passes by leaving these classes
out, and only these; ``test_each_known_finding_still_happens`` fails as soon as one is fixed, so
that its entry is deleted here.  When issue 14 is merged this list should be empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The helpers of issue 14 a known finding may belong to.
OWNERS = ("boundary", "args", "limits", "objects")


@dataclass(frozen=True)
class Known:
    owner: str      # the helper of issue 14 whose part it is
    kind: str       # the Finding's kind
    pattern: str    # a regular expression searched in the Finding's detail
    example: str    # a minimal reproducer (it must still show the class: see the test)
    timing: bool = False  # shows only when a timer fires at the wrong moment: the example may not show it


_P = "import torch\nx = torch.randn(3, 4, requires_grad=True)\n"

KNOWN: tuple[Known, ...] = (
    # ---- boundary: one error boundary, every report located; the parser's own errors
    Known("boundary", "unlocated", r"^(prog\.ag|<stdin>): TimeoutError: the script ran longer",
          "f = " + "(lambda: " * 3000 + "1" + ")()" * 3000 + "\n"),          # --timeout while compiling
    Known("boundary", "escaped", r"ScriptTimeout",      # the alarm firing while run_source reports or cleans up
          "x = [" + "abs(" * 1000 + "1" + ")" * 1000 + "]\n", timing=True),
    Known("boundary", "unlocated", r"^TypeError: bad operand type for unary ~",
          "print(~0.5)\n"),                                                   # no location at all
    Known("boundary", "internal-error", r"@ gradcli/lang/syntax_errors\.py:",
          "f(a(), b(c=1)\nf(d(), e"),                                     # IndexError in expression_end
    # ---- objects: type() and attributes of types reach only documented objects
    Known("objects", "internal-name", r"gradcli\.lang\.|<property object|<member '|<attribute '|<getset_descriptor",
          "print(type(''.format))\n"),
    # ---- limits: sizes checked before anything is allocated
    Known("limits", "internal-error", r"(array is too big|negative dimensions are not allowed|Python int too large "
                                      r"to convert to C long|cannot fit 'int' into an index-sized integer).* @ gradcli/engine/",
          "import torch\nw = torch.ones(1).expand(300, 2 ** 62)\n"),               # expand to 2**62 elements
    Known("limits", "internal-error", r"Maximum allowed size exceeded @ gradcli/engine/",
          "import torch\nr = torch.logspace(1.5, 3, 10 ** 25)\n"),
    # ---- args: argument validation before NumPy (the print options included)
    Known("args", "internal-error", r"@ gradcli/engine/printing/",
          "import torch\ntorch.set_printoptions(precision=-float('inf'))\nprint(torch.tensor([1.5, 2.25]))\n"),
    Known("args", "internal-error", r"@ gradcli/engine/(?!dispatch/limits)",
          _P + "torch.narrow(x, None, 'floor', 1)\n"),
)


def classify(finding: object) -> str | None:
    """The known entry a Finding belongs to (``owner: pattern``), or None for a new failure."""
    for known in KNOWN:
        if known.kind == finding.kind and re.search(known.pattern, finding.detail):  # type: ignore[attr-defined]
            return f"{known.owner}: {known.pattern}"
    return None
