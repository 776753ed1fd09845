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
    # Every class the helpers' parts let through was fixed when issue 14 was merged; this one is
    # left because it shows only when a timer fires at the wrong moment, so the test below cannot
    # replay it to say whether it is gone.
    Known("boundary", "escaped", r"ScriptTimeout",      # the alarm firing while run_source reports or cleans up
          "x = [" + "abs(" * 1000 + "1" + ")" * 1000 + "]\n", timing=True),
)


def classify(finding: object) -> str | None:
    """The known entry a Finding belongs to (``owner: pattern``), or None for a new failure."""
    for known in KNOWN:
        if known.kind == finding.kind and re.search(known.pattern, finding.detail):  # type: ignore[attr-defined]
            return f"{known.owner}: {known.pattern}"
    return None
