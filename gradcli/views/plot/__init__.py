"""Plots: ``gradcli plot EXPR`` (f and its derivative by autograd), and ``matplotlib.pyplot`` for
scripts, drawn in the terminal and saved as SVG or PNG inside ``--plot-dir``.

- ``figure``: the figure model all drawings share; ``terminal``, ``svg``, ``png``: the drawings
  (plotille for the terminal, our own SVG writer, Pillow for PNG - each imported when used);
- ``pyplot``, ``artists``, ``plot_args``, ``savefile``: the module a script imports;
- ``expression``, ``command``: ``gradcli plot``.

For the report page: ``figures_of(session)`` and ``figure_svg(figure)``.
"""

from __future__ import annotations

from typing import Any


def figures_of(session: Any) -> list:
    """The figures a run drew (shown or saved, in that order), then those it left open."""
    state = session.view_state.get("pyplot")
    return state.figures() if state is not None else []


def figure_svg(figure: Any) -> str:
    """A figure as a standalone SVG document (for inlining in HTML)."""
    from gradcli.views.plot.svg import figure_svg as write
    return write(figure)
