"""How often Python's cycle collector runs while a script builds graphs.

A graph is made of many small container objects (nodes, their edge tuples, saved
values, tensors) that live until the backward pass or the next step.  With
CPython's default thresholds a full collection runs every hundred young ones;
each walks every live object, so a long recurrence (a 10^5-node graph) spent as
much time in the collector as in its ops.  Graphs themselves hold no reference
cycles (a node saves its own output without a reference to the tensor, see
``autograd.node.SavedOutput``), so they are freed by reference counting the
moment they are dropped and need no collection; what the collector still finds
is rare.  Young collections stay as frequent as CPython makes them (a cycle that
dies young is freed as soon as before); only the full collections are spaced ten
times further apart.  (``gradcli run`` freezes what start-up made once it is set
up: see cli.py.)
"""

from __future__ import annotations

import gc

# (young, middle, full): CPython's defaults are (700, 10, 10).
THRESHOLDS = (700, 10, 100)

_tuned = False


def tune() -> None:
    """Set the thresholds once per process."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.set_threshold(*THRESHOLDS)
