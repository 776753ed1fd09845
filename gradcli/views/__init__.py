"""What PyTorch never shows: views of a run that use both the engine and the language.

- ``provenance``: which line, expression and variable names made each node (the base of all views);
- ``graph``: the backward graph as a Rich tree, Graphviz DOT or SVG;
- ``trace``: the chain rule step by step while ``backward()`` runs;
- ``explain``: equations with the script's names and SymPy's derivative beside autograd's;
- ``plot``: terminal plots, ``matplotlib.pyplot`` for scripts, ``gradcli plot``;
- ``json_output``, ``report``: the run as a JSON document, or as one HTML page.

Nothing here is imported by a plain ``gradcli run``: each view is loaded when asked for.
"""
