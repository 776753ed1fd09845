"""The chain rule, step by step: ``gradcli run --trace-backward`` and the REPL's ``:trace on``.

``recorder`` hears the engine's backward passes, ``blocks`` words each step, ``chain`` sums up
one element's gradient as a product of local derivatives, ``output`` writes plain or coloured.
"""

from gradcli.views.trace.view import TraceView

__all__ = ["TraceView"]
