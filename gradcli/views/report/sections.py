"""The parts of the report that need only the run itself: the script, what it printed, the
error and warnings, the final variables."""

from __future__ import annotations

from typing import Any, Sequence

from gradcli.engine.tensor import Tensor
from gradcli.lang.diagnostics import Report
from gradcli.views.report.highlight import highlighted_lines
from gradcli.views.report.page import Section, escape, plural
from gradcli.views.values import bounded_repr, describe_value

MAX_SHOWN_REPR = 2000       # characters of a value shown in the variables table
FOLDED_STDERR_LINES = 40    # a longer stderr is shown folded


def script_section(text: str, error: Report | None, warnings: Sequence[Report],
                   made_at: dict[int, list[str]]) -> Section:
    """The script with line numbers; the error's line marked, and the lines that made graph
    nodes (``made_at``: line -> node names) marked and pointing at the graph."""
    error_lines = set()
    if error is not None and error.line is not None:
        error_lines = set(range(error.line, (error.end_line or error.line) + 1))
    warn_lines = {w.line for w in warnings if w.line is not None}
    rows = []
    for number, line in enumerate(highlighted_lines(text), start=1):
        classes = []
        if number in error_lines:
            classes.append("error-line")
        elif number in warn_lines:
            classes.append("warn-line")
        extra = " ".join(classes)
        ln_classes = " ".join(["ln", *classes] + (["made"] if number in made_at else []))
        title = ""
        if number in made_at:
            names = made_at[number]
            title = f' title="{escape(", ".join(_counted(names)))}"'
        rows.append(f'<span class="{ln_classes}" id="L{number}" data-line="{number}"{title}>{number}</span>'
                    f'<span class="src{" " + extra if extra else ""}" data-line="{number}">{line or " "}</span>')
    count = plural(len(rows), "line")
    note = ('<p class="note">A marked line number made nodes of the backward graph '
            '(hover it to see which).</p>\n' if made_at else "")
    return Section("script", "Script", f'{note}<div class="script code">{"".join(rows)}</div>', count)


def _counted(names: list[str]) -> list[str]:
    """``['MulBackward0', 'MulBackward0', 'AddBackward0']`` as ``['MulBackward0 ×2', 'AddBackward0']``."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return [name if n == 1 else f"{name} ×{n}" for name, n in counts.items()]


def output_section(printed: str, diagnostics_text: str) -> Section:
    """What the script printed on stdout, then what gradcli reported on stderr."""
    parts = []
    if printed:
        parts.append(f'<h3>stdout</h3>\n<pre class="stream stdout">{escape(printed)}</pre>')
    else:
        parts.append('<p class="note">The script printed nothing.</p>')
    if diagnostics_text:
        # long (figures drawn as text, a traceback): folded, as the parts above show it better
        count = diagnostics_text.count("\n")
        folded = count > FOLDED_STDERR_LINES
        summary = f"stderr: {plural(count, 'line')} (click to show)" if folded else "stderr"
        parts.append(f'<details class="stderr"{"" if folded else " open"}><summary>{summary}</summary>\n'
                     f'<pre class="stream stderr">{escape(diagnostics_text)}</pre></details>')
    lines = printed.count("\n") + (0 if printed.endswith("\n") or not printed else 1)
    return Section("output", "Output", "\n".join(parts), plural(lines, "line"))


def diagnostics_section(error: Report | None, warnings: Sequence[Report]) -> Section | None:
    """The error that stopped the script and the warnings, as boxes; None when there are none."""
    if error is None and not warnings:
        return None
    boxes = [_diagnostic(error, "error")] if error is not None else []
    boxes += [_diagnostic(w, "warning") for w in warnings]
    title = "Error" if error is not None else "Warnings"
    count = plural(len(warnings), "warning") if warnings else ""
    return Section("diagnostics", title, "\n".join(boxes), count)


def _diagnostic(report: Report, kind: str) -> str:
    headline = f"{report.type}: {report.message}" if report.message else report.type
    where = ""
    if report.line is not None:
        place = f"{report.filename}, line {report.line}, column {report.column}"
        where = f'<div class="where"><a href="#L{report.line}">{escape(place)}</a></div>'
    elif report.filename:
        where = f'<div class="where">{escape(report.filename)}</div>'
    hint = f'<div class="hint">{escape(report.hint)}</div>' if report.hint else ""
    return (f'<div class="diagnostic {kind}"><div class="headline code">{escape(headline)}</div>'
            f"{where}{hint}</div>")


def variables_section(namespace: dict[str, Any]) -> Section:
    """The script's names at the end: tensors with their value, ``.grad`` and ``grad_fn``."""
    rows = []
    shown = 0
    for name, value in list(namespace.items()):
        described = describe_value(name, value)
        kind = described["kind"]
        if kind == "tensor":
            shape = "×".join(str(n) for n in described["shape"]) or "scalar"
            what = f"{shape} {described['dtype'].removeprefix('torch.')}"
            grad = value._grad
            cells = [_pre(_shown_repr(value)), _pre(_shown_repr(grad)) if isinstance(grad, Tensor) else "",
                     escape(described["grad_fn"] or ("leaf" if described["requires_grad"] else ""))]
        elif kind == "value":
            what = described["type"]
            cells = [_pre(_shown_repr(value)), "", ""]
        else:
            what = f"{kind} ({described['type']})" if kind == "class" else kind
            cells = ["", "", ""]
        minor = ' class="minor"' if kind in ("module", "function", "class") else ""
        shown += 1
        rows.append(f'<tr{minor}><td class="name code">{escape(name)}</td><td>{escape(what)}</td>'
                    + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    if not rows:
        return Section("variables", "Variables", '<p class="note">The script bound no names.</p>')
    head = ("<tr><th>name</th><th>what</th><th>value at the end</th><th>.grad</th>"
            "<th>grad_fn</th></tr>")
    return Section("variables", "Variables", f'<table class="vars">{head}{"".join(rows)}</table>',
                   plural(shown, "name"))


def _shown_repr(value: Any) -> str:
    text, cut = bounded_repr(value, MAX_SHOWN_REPR)
    return text + (" …" if cut else "")


def _pre(text: str) -> str:
    return f'<pre class="code">{escape(text)}</pre>'
