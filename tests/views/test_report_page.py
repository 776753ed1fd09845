"""``gradcli report``: the command, and the page's parts as HTML (the browser test opens it)."""

from __future__ import annotations

import html
import io
import json
import re
import subprocess
import sys
from pathlib import Path

from gradcli.views.report.build import build_report
from gradcli.views.report.highlight import highlighted_lines

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PATH": "/usr/bin:/bin", "COLUMNS": "80"}
SCRIPT = """\
import torch
x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
y.backward()
print("<b>not bold</b> & done")
"""


def gradcli(*args: str, input: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, capture_output=True,
                          text=True, env=ENV, timeout=60, cwd=cwd)


def test_report_writes_the_page_and_says_where(tmp_path):
    script = tmp_path / "s.ag"
    script.write_text(SCRIPT, encoding="utf-8")
    done = gradcli("report", str(script), "-o", str(tmp_path / "page.html"))
    assert done.returncode == 0 and done.stdout == ""
    assert re.fullmatch(rf"gradcli: wrote {re.escape(str(tmp_path / 'page.html'))} \(\d+ KB\)\n", done.stderr)
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "&lt;b&gt;not bold&lt;/b&gt; &amp; done" in page


def test_report_on_stdout_and_the_default_name(tmp_path):
    done = gradcli("report", "-", "-o", "-", input=SCRIPT)
    assert done.returncode == 0 and done.stdout.startswith("<!DOCTYPE html>") and done.stderr == ""
    done = gradcli("report", "-", input=SCRIPT, cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "report.html").exists()


def test_a_failing_script_still_gets_its_page_and_its_exit_status(tmp_path):
    out = tmp_path / "page.html"
    done = gradcli("report", "-", "-o", str(out), input="x = 1\nprint(x +)\n")
    run = gradcli("run", "-", input="x = 1\nprint(x +)\n")
    assert done.returncode == run.returncode == 1
    assert run.stderr.startswith("<stdin>:2:10: SyntaxError: invalid syntax\n")
    assert done.stderr.startswith(run.stderr)                                   # reported as `run` does
    assert re.fullmatch(rf"gradcli: wrote {re.escape(str(out))} \(\d+ KB\)\n", done.stderr[len(run.stderr):])
    page = out.read_text(encoding="utf-8")
    assert 'class="diagnostic error"' in page and "SyntaxError: invalid syntax" in page


def test_bad_input_and_an_unwritable_page_are_reported_in_one_line(tmp_path):
    done = gradcli("report", str(tmp_path / "missing.ag"))
    assert done.returncode == 2
    assert done.stderr == f"gradcli: cannot read '{tmp_path / 'missing.ag'}': No such file or directory\n"
    done = gradcli("report", "-", "-o", str(tmp_path / "no" / "such" / "page.html"), input=SCRIPT)
    assert done.returncode == 2
    assert done.stderr == f"gradcli: cannot write '{tmp_path / 'no' / 'such' / 'page.html'}': No such file or directory\n"


def test_the_page_fetches_nothing():
    page = build_report(SCRIPT, "s.ag", stderr=io.StringIO()).html
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", page)
    assert not re.search(r"@import|url\(\s*['\"]?(?:https?:|//)", page)


def test_the_embedded_document_is_the_json_view_s():
    page = build_report(SCRIPT, "s.ag", stderr=io.StringIO()).html
    embedded = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', page, re.S).group(1)
    document = json.loads(embedded)
    assert document["output"] == ["<b>not bold</b> & done"]
    x = next(v for v in document["variables"] if v["name"] == "x")
    assert x["grad"]["values"] == [3.0, 3.0]


def test_lines_that_made_nodes_are_marked_with_the_node_names():
    page = build_report(SCRIPT, "s.ag", stderr=io.StringIO()).html
    assert '<span class="ln made" id="L3" data-line="3" title="MulBackward0, SumBackward0">3</span>' in page
    assert 'id="L2" data-line="2"' in page and 'class="ln made" id="L2"' not in page


def test_highlighting_escapes_and_keeps_one_piece_per_line():
    text = 'x = "<tag>"  # a & b\ns = """one\ntwo"""\nif x: y = 1.5e-3\n'
    lines = highlighted_lines(text)
    assert len(lines) == 4
    assert lines[0] == ('x = <span class="tok-string">"&lt;tag&gt;"</span>  '
                        '<span class="tok-comment"># a &amp; b</span>')
    assert lines[1] == 's = <span class="tok-string">"""one</span>'
    assert lines[2] == '<span class="tok-string">two"""</span>'
    assert lines[3] == ('<span class="tok-keyword">if</span> x: y = <span class="tok-number">1.5e-3</span>')
    assert [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lines] == text.rstrip("\n").split("\n")


def test_a_plain_run_does_not_load_the_report():
    probe = ("import sys; from gradcli.cli import run_file; run_file('-'); "
             "print([m for m in sys.modules if m.startswith('gradcli.views')])")
    done = subprocess.run([sys.executable, "-c", probe], input="print(1)\n", capture_output=True, text=True,
                          env=ENV, timeout=60, cwd=ROOT)
    assert done.stdout.splitlines() == ["1", "[]"]


def section_text(page: str, section: str) -> str:
    """The text of a section's body as a browser shows it (tags dropped, entities read)."""
    found = re.search(rf'<section id="{section}">\n<h2>.*?</h2>\n<div class="body">\n(.*?)\n</div>\n</section>',
                      page, re.S)
    assert found, f"no {section} section"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


TRACED = """\
import torch
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
out.backward()
print(x.grad)
"""


def test_the_trace_part_is_what_trace_backward_writes():
    page = build_report(TRACED, "<stdin>", stderr=io.StringIO()).html
    run = gradcli("run", "--trace-backward", "--no-color", "-", input=TRACED)
    assert run.returncode == 0 and "MeanBackward0" in run.stderr
    assert run.stderr.endswith("\n") and section_text(page, "trace") == run.stderr[:-1]


def test_without_a_backward_call_the_trace_part_says_so():
    page = build_report("import torch\nx = torch.ones(2) * 2\n", "s.ag", stderr=io.StringIO()).html
    assert "there is no backward pass to show" in section_text(page, "trace")


PLOTTED = """\
import matplotlib.pyplot as plt
losses = [4.0, 2.0, 1.0, 0.5]
plt.plot(losses, label="loss")
plt.title("training")
plt.show()
plt.figure()
plt.scatter([1, 2], [3, 4])
plt.show()
"""


def test_the_plots_part_has_one_svg_per_figure():
    page = build_report(PLOTTED, "s.ag", stderr=io.StringIO()).html
    plots = page[page.index('<section id="plots">'):]
    plots = plots[:plots.index("</section>")]
    assert plots.count('<div class="figure plot"><svg ') == 2 and plots.count("</svg>") == 2
    assert "training" in section_text(page, "plots")
    assert '<section id="plots">' not in build_report("x = 1\n", "s.ag", stderr=io.StringIO()).html


def test_the_parts_come_in_order_and_a_script_without_a_graph_says_so():
    sections = [s.id for s in build_report(TRACED, "s.ag", stderr=io.StringIO()).sections]
    assert sections == ["script", "output", "graph", "trace", "variables"]
    page = build_report("import torch\nx = torch.ones(2) * 2\nprint(x)\n", "s.ag", stderr=io.StringIO()).html
    assert "there is no backward graph to draw" in section_text(page, "graph")
