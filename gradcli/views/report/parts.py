"""The report's parts that come from the other views: the backward graph (``gradcli.views.graph``),
the backward trace (``gradcli.views.trace``) and the plots (``gradcli.views.plot``).

Each part is made only when its view is installed (``available_parts``).  A part may start
watching the engine before the run (``start``, given a function that returns the run's
provenance once it exists), stops after it (``stop``), and then gives its section.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

from gradcli.views.report.page import Section, escape, plural

ProvenanceOf = Callable[[], Any]


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class TracePart:
    """The chain rule step by step, as ``--trace-backward`` writes it, with its colours as classes."""
    id = "trace"
    title = "Backward trace"

    def __init__(self) -> None:
        self.lines: list[list[tuple[str, str | None]]] = []
        self.tracer: Any = None

    def write(self, lines: Any) -> None:       # (the tracer's output: lines of (text, role) pieces)
        self.lines.extend([list(line) for line in lines])

    def start(self, provenance: ProvenanceOf) -> None:
        from gradcli.engine.autograd import observe
        from gradcli.views.trace.recorder import BackwardTrace

        self.tracer = BackwardTrace(self, provenance)
        observe.add_tracer(self.tracer)

    def stop(self) -> None:
        from gradcli.engine.autograd import observe

        if self.tracer is not None:
            observe.remove_tracer(self.tracer)
            if self.tracer.untraced:
                self.write(self.tracer.untraced_lines())

    def section(self, run: Any) -> Section | None:
        if self.tracer is None or self.tracer.passes == 0:
            return Section(self.id, self.title, '<p class="note">The script called no backward() and no '
                                                "torch.autograd.grad(): there is no backward pass to show.</p>")
        body = "\n".join(_trace_line(line) for line in self.lines)
        return Section(self.id, self.title, f'<pre class="trace code">{body}</pre>',
                       plural(self.tracer.passes, "pass"))


def _trace_line(line: list) -> str:
    pieces = []
    for piece in line:
        text, role = piece if isinstance(piece, tuple) and len(piece) == 2 else (str(piece), None)
        role_class = f' class="tr-{escape(role)}"' if role else ""
        pieces.append(f"<span{role_class}>{escape(text)}</span>" if role else escape(text))
    return "".join(pieces)


class GraphPart:
    """The backward graph of the tensors ``gradcli graph FILE`` draws by default, as SVG."""
    id = "graph"
    title = "Backward graph"

    def __init__(self) -> None:
        self.recorder: Any = None

    def start(self, provenance: ProvenanceOf) -> None:
        from gradcli.views.graph.roots import LastBackward

        self.recorder = LastBackward().install()   # (after the trace: it passes every event on)

    def stop(self) -> None:
        if self.recorder is not None:
            self.recorder.remove()

    def section(self, run: Any) -> Section:
        from gradcli.views.graph import graph_model, graph_svg
        from gradcli.views.graph.roots import CannotDraw, param_names, pick_roots
        from gradcli.views.graph.svg import LayoutError

        try:
            roots, headings = pick_roots(run, [], self.recorder)
        except CannotDraw:
            return Section(self.id, self.title, '<p class="note">The script made no tensor that requires '
                                                "grad: there is no backward graph to draw.</p>")
        try:
            svg = graph_svg(roots, run.provenance, param_names=param_names(run.session.globals))
        except LayoutError as error:       # dot failing or too slow on a huge graph
            return Section(self.id, self.title, f'<p class="note">The graph could not be laid out: '
                                                f"{escape(str(error))}.</p>")
        nodes = sum(1 for node in graph_model(roots, run.provenance).nodes if node.node is not None)
        note = escape("; ".join(dict.fromkeys(headings or ())))
        note = f'<p class="note">The graph of {note}.</p>\n' if note else ""
        return Section(self.id, self.title, f'{note}<div class="figure graph">{_inline(svg)}</div>',
                       plural(nodes, "node"))


class PlotsPart:
    """The figures the script drew with ``matplotlib.pyplot``, as SVG."""
    id = "plots"
    title = "Plots"

    def start(self, provenance: ProvenanceOf) -> None:
        pass

    def stop(self) -> None:
        pass

    def section(self, run: Any) -> Section | None:
        from gradcli.views.plot import figure_svg, figures_of

        figures = figures_of(run.session)
        if not figures:
            return None                           # a script that plots nothing has no plots part
        drawn = "\n".join(f'<div class="figure plot">{_inline(figure_svg(figure))}</div>' for figure in figures)
        return Section(self.id, self.title, f'<div class="plots">{drawn}</div>', plural(len(figures), "figure"))


def _inline(svg: str) -> str:
    """An SVG document as an element of the page (its XML declaration and doctype left out)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


# (module that must be installed, part), in the order they start watching: the graph's recorder
# last, as it passes every event on to the tracer installed before it
PARTS: list[tuple[str, type]] = [
    ("gradcli.views.trace", TracePart),
    ("gradcli.views.plot", PlotsPart),
    ("gradcli.views.graph", GraphPart),
]
PAGE_ORDER = ("graph", "trace", "plots")


def available_parts() -> list[Any]:
    """A fresh part for each view that is installed."""
    return [part() for module, part in PARTS if _installed(module)]
