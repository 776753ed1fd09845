"""``plt.savefig``: refused without ``--plot-dir``, refused outside the folder (``..``, absolute
paths, symbolic links), valid SVG and PNG inside it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from gradcli.lang.runtime import Session

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"

PLOTTING = """\
import matplotlib.pyplot as plt
plt.plot([3, 1, 2], 'b-o', label="loss")
plt.scatter([0, 2], [2, 3], c="red", label="marks")
plt.title("saved")
plt.xlabel("step")
plt.ylabel("value")
plt.legend()
plt.grid(True)
"""


def save(name: str, plot_dir: str | None) -> tuple[int, str]:
    err = io.StringIO()
    session = Session(stdout=io.StringIO(), stderr=err, plot_dir=plot_dir, hints=False)
    outcome = session.run_source(PLOTTING + f"plt.savefig({name!r})\n", "s.ag")
    return outcome.exit_code, err.getvalue()


def test_refused_without_plot_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = save("loss.png", None)
    assert code == 1
    assert err.splitlines()[0] == ("s.ag:9:1: PermissionError: plt.savefig('loss.png') is refused: a script may "
                                   "write plots only inside the folder given by --plot-dir DIR (run gradcli "
                                   "with --plot-dir)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, why", [
    ("../escaped.png", "a path that leaves the folder with '..'"),
    ("sub/../../escaped.png", "a path that leaves the folder with '..'"),
    ("/tmp/escaped.png", "an absolute path"),
    ("out/x.png", "a symbolic link"),           # out -> a folder outside DIR
    ("link.svg", "a symbolic link"),            # a link to a file outside DIR
])
def test_refused_outside_the_folder(tmp_path, name, why):
    plots, outside = tmp_path / "plots", tmp_path / "outside"
    (plots / "sub").mkdir(parents=True)
    outside.mkdir()
    (plots / "out").symlink_to(outside)
    (plots / "link.svg").symlink_to(outside / "target.svg")
    code, err = save(name, str(plots))
    assert code == 1
    assert f"PermissionError: plt.savefig({name!r}) is refused: {why}" in err.splitlines()[0]
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "escaped.png").exists()


@pytest.mark.parametrize("name, message", [
    ("plot.pdf", "ValueError: Format 'pdf' is not supported (supported formats: png, svg)"),
    ("", "ValueError: '' is not a file name"),
    ("nosuch/plot.png", "FileNotFoundError: No such folder in --plot-dir"),
])
def test_other_refusals(tmp_path, name, message):
    code, err = save(name, str(tmp_path))
    assert code == 1 and message in err.splitlines()[0]
    assert list(tmp_path.iterdir()) == []


def test_a_missing_plot_dir_is_named(tmp_path):
    code, err = save("a.png", str(tmp_path / "missing"))
    assert code == 1
    assert "FileNotFoundError: the --plot-dir folder" in err


def test_writes_a_valid_svg_inside(tmp_path):
    (tmp_path / "sub").mkdir()
    assert save("sub/loss.svg", str(tmp_path)) == (0, "")
    root = ElementTree.fromstring((tmp_path / "sub" / "loss.svg").read_text())
    assert (root.tag, root.get("width"), root.get("height")) == (SVG + "svg", "640", "480")
    texts = [t.text for t in root.iter(SVG + "text")]
    assert {"saved", "step", "value", "loss", "marks"} <= set(texts)
    assert {"0.00", "0.25", "1.75", "2.00"} <= set(texts)   # the x ticks, at matplotlib's 0.25 steps
    data = root.findall(f"{SVG}polyline[@stroke='#0000ff']")            # 'b-o': matplotlib's 'b'
    assert len(data) == 2 and data[0].get("clip-path")                 # the line (clipped) and its sample
    assert len(root.findall(f"{SVG}circle[@fill='#0000ff']")) == 3 + 1   # its markers
    assert len(root.findall(f"{SVG}circle[@fill='#ff0000']")) == 2 + 1   # the scatter's


def test_writes_a_valid_png_inside(tmp_path):
    from PIL import Image
    assert save("loss.png", str(tmp_path)) == (0, "")
    assert save("plain", str(tmp_path)) == (0, "")       # no extension: .png, as matplotlib's default
    with Image.open(tmp_path / "loss.png") as image:
        assert (image.format, image.size) == ("PNG", (640, 480))
        colors = {color for _, color in image.convert("RGB").getcolors(640 * 480)}
    assert (255, 255, 255) in colors and len(colors) > 50        # not blank: lines, text, anti-aliasing
    assert any(r < 80 and g < 150 and b > 150 for r, g, b in colors)   # C0 blue is there
    assert (tmp_path / "plain.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_savefig_through_the_command_line(tmp_path):
    script = tmp_path / "s.ag"
    script.write_text(PLOTTING + "plt.savefig('loss.svg')\nprint('done')\n")
    env = {"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    refused = subprocess.run([sys.executable, "-m", "gradcli", "run", str(script)], capture_output=True,
                             text=True, env=env, timeout=60)
    assert refused.returncode == 1 and "--plot-dir DIR" in refused.stderr
    plots = tmp_path / "plots"
    plots.mkdir()
    saved = subprocess.run([sys.executable, "-m", "gradcli", "run", "--plot-dir", str(plots), str(script)],
                           capture_output=True, text=True, env=env, timeout=60)
    assert (saved.returncode, saved.stdout, saved.stderr) == (0, "done\n", "")
    assert (plots / "loss.svg").read_text().startswith("<svg ")
