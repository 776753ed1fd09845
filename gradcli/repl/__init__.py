"""The interactive REPL: ``gradcli`` with no arguments, or ``gradcli repl``.

* ``core.Console`` -- the pure session (``push(line)`` -> need more input?),
  the REPL's semantics with no terminal in sight;
* ``commands`` and ``help_text`` -- ``:help :vars :reset :load :save :quit``;
* ``lines`` -- the plain line reader used when stdin is not a terminal;
* ``shell`` -- the prompt_toolkit front end (``completion``, ``highlight``,
  ``keys``, ``history``);
* ``launch.main`` -- picks one of the two front ends.

prompt_toolkit is imported only by the terminal front end, never on the
``run``/``eval`` path.
"""
