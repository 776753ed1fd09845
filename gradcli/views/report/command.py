"""``gradcli report FILE [-o report.html]``: run a script and write one self-contained HTML page
about it (the script, its output, the error, the graph, the backward trace, the plots, the final
variables).  The page is written even when the script fails; the exit status is the script's."""

# No `from __future__ import annotations`: Typer reads the command's annotations.
import sys
from typing import Any

from gradcli.views.commands import FILE_HELP

REPORT_HELP = ("Run a script and write one HTML page about it: the script, its output, any error, "
               "the backward graph with the script's names, the backward trace, the plots and the "
               "final variables. The page needs no network; open it in any browser.")
OUTPUT_HELP = "Where to write the page ('-' writes it on stdout)."
DEFAULT_OUTPUT = "report.html"


def register(app: Any, kit: Any) -> None:
    import typer

    @app.command("report", cls=kit.command_class, help=REPORT_HELP)
    @kit.shared_options("run")
    def report(
        ctx: typer.Context,
        file: str = typer.Argument(..., metavar="FILE", help=FILE_HELP),
        output: str = typer.Option(DEFAULT_OUTPUT, "--output", "-o", metavar="FILE", help=OUTPUT_HELP),
        **options: Any,
    ) -> None:
        script = kit.read_script(file)
        if isinstance(script, int):
            kit.exit_with(script)
            return
        kit.exit_with(write_report(*script, output, **options))


def write_report(text: str, filename: str, output: str, **options: Any) -> int:
    """Make the page and write it to ``output``; the script's exit status (2 if it cannot be written)."""
    from gradcli.views.report.build import build_report

    page = build_report(text, filename, **options)
    if output == "-":
        sys.stdout.write(page.html)
        sys.stdout.flush()
        return page.exit_code
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(page.html)
    except OSError as error:
        sys.stderr.write(f"gradcli: cannot write '{output}': {error.strerror or error}\n")
        return 2
    size = len(page.html.encode("utf-8"))
    sys.stderr.write(f"gradcli: wrote {output} ({_size(size)})\n")
    return page.exit_code


def _size(count: int) -> str:
    return f"{count} bytes" if count < 1024 else f"{count / 1024:.0f} KB"
