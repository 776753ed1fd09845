"""The report page as HTML: a header, a bar of links, one ``<section>`` per part.

Everything is inline (the style sheet, the script, the SVG pictures) and the page's Content
Security Policy forbids fetching anything, so it opens the same from a file, a mail or an
archive, with no network.  The sections themselves are made in ``sections``; this module
only puts them together.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

import gradcli

_HERE = Path(__file__).parent
# no fetching of anything: styles, scripts and pictures are all in the page
CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                           "img-src data:; base-uri 'none'; form-action 'none'")


@dataclass
class Section:
    """One part of the page: ``body`` is HTML."""
    id: str
    title: str
    body: str
    count: str = ""             # a short figure beside the title ("12 lines", "9 nodes")


def plural(count: int, word: str) -> str:
    """``1 line``, ``3 lines``, ``2 passes``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}{'es' if word.endswith('s') else 's'}"


def escape(text: str) -> str:
    return html.escape(text, quote=True)


def json_in_script(data: object) -> str:
    """JSON to put inside ``<script type="application/json">``: no ``</`` may end the element early."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def render_page(filename: str, status: str, exit_code: int, sections: list[Section],
                data: object | None = None) -> str:
    """The whole page.  ``data`` (the ``--json`` document of the run) is embedded for tools."""
    css = (_HERE / "page.css").read_text(encoding="utf-8")
    js = (_HERE / "page.js").read_text(encoding="utf-8")
    nav = "".join(f'<a href="#{s.id}">{escape(s.title)}</a>' for s in sections)
    body = "\n".join(_section(s) for s in sections)
    status_text = {"ok": "ran to the end", "error": "stopped by an error", "interrupted": "interrupted",
                   "internal-error": "gradcli failed"}.get(status, status)
    embedded = ("" if data is None else
                f'<script type="application/json" id="run-data">{json_in_script(data)}</script>\n')
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gradcli {escape(gradcli.__version__)}">
<title>{escape(filename)} - gradcli report</title>
<style>
{css}</style>
</head>
<body>
<header>
<h1>gradcli report: <span class="file">{escape(filename)}</span>
<span class="status {escape(status)}">{escape(status_text)}</span></h1>
<div class="meta">exit status {exit_code} &middot; gradcli {escape(gradcli.__version__)},
reproducing PyTorch {escape(gradcli.TORCH_VERSION)}</div>
</header>
<nav>{nav}</nav>
<main>
{body}
</main>
{embedded}<script>
{js}</script>
</body>
</html>
"""


def _section(section: Section) -> str:
    count = f'<span class="count">{escape(section.count)}</span>' if section.count else ""
    return (f'<section id="{escape(section.id)}">\n<h2>{escape(section.title)}{count}</h2>\n'
            f'<div class="body">\n{section.body}\n</div>\n</section>')
