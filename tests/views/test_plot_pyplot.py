"""``import matplotlib.pyplot as plt`` in scripts: figures drawn on stderr, stdout untouched,
matplotlib's argument rules and errors, the figures kept for the report page."""

from __future__ import annotations

import io
import textwrap
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

from gradcli.lang.runtime import Session
from gradcli.views.plot import figure_svg, figures_of
from gradcli.views.plot.plot_args import parse_format


def run(text: str, **options) -> tuple[int, str, str, Session]:
    out, err = io.StringIO(), io.StringIO()
    session = Session(stdout=out, stderr=err, **options)
    outcome = session.run_source(textwrap.dedent(text), "s.ag")
    return outcome.exit_code, out.getvalue(), err.getvalue(), session


TRAINING = """\
import torch
import matplotlib.pyplot as plt

torch.manual_seed(0)
w = torch.zeros(1, requires_grad=True)
losses = []
for step in range(20):
    loss = ((w - 3) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
    losses.append(loss.item())
    if step % 5 == 0:
        print(step, loss, w)
plt.figure(figsize=(4, 3))
plt.plot(losses, label="loss")
plt.xlabel("step")
plt.ylabel("loss")
plt.title("training")
plt.legend()
plt.grid(True)
plt.show()
print(w)
"""

GOLDEN_LOSS = """\
                   training
loss
    │ ⢠
    │  ⢇
7.5 ┤  ⠸⡀
    │   ⢣
5.0 ┤   ⠈⢆
    │    ⠘⡄
2.5 ┤     ⠘⡄
    │      ⠈⠢⢄
    │         ⠉⠒⢄⣀
0.0 ┤             ⠉⠉⠉⠑⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠂
    └─┬────────┬───────┬────────┬────────
      0        5       10       15
                     step

     ⠤⠤⠤ loss
"""


def test_a_training_script_keeps_its_stdout_and_draws_on_stderr():
    code, out, err, _ = run(TRAINING)
    without_plots = "\n".join(line for line in TRAINING.splitlines() if "plt" not in line) + "\n"
    expected_code, expected_out, expected_err, _ = run(without_plots)
    assert (code, expected_code, expected_err) == (0, 0, "")
    assert out == expected_out             # byte for byte what the script prints without plotting
    assert "tensor([2.9654], requires_grad=True)" in out
    assert err == GOLDEN_LOSS


def test_a_loss_curve_from_a_list_of_floats():
    code, out, err, session = run("""
        import matplotlib.pyplot as plt
        losses = [1.0 / (i + 1) for i in range(10)]
        plt.plot(losses)
        plt.show()
    """)
    assert (code, out) == (0, "")
    (figure,) = figures_of(session)
    np.testing.assert_allclose(figure.series[0].x, np.arange(10))
    np.testing.assert_allclose(figure.series[0].y, [1.0 / (i + 1) for i in range(10)])
    assert "1.0 ┤" in err and "0.2 ┤" in err


@pytest.mark.parametrize("imports, name", [
    ("import matplotlib.pyplot as plt", "plt"),
    ("from matplotlib import pyplot as plt", "plt"),
    ("import matplotlib.pyplot", "matplotlib.pyplot"),
    ("import matplotlib; matplotlib.use('Agg')", "matplotlib.pyplot"),
])
def test_the_ways_to_import_pyplot(imports, name):
    code, out, err, session = run(f"""
        {imports}
        {name}.plot([0, 1, 4], 'ro-', label="squares")
        {name}.title("sq")
        {name}.show()
    """)
    assert (code, out) == (0, ""), err
    assert err.splitlines()[0].strip() == "sq"
    series = figures_of(session)[0].series[0]
    assert (series.color, series.marker, series.linestyle, series.label) == ("#ff0000", "o", "-", "squares")


def test_tensors_arrays_and_2d_values():
    code, _, err, session = run("""
        import torch, numpy as np
        import matplotlib.pyplot as plt
        x = torch.linspace(0, 1, 5)
        plt.plot(x, x ** 2, 'g--')
        plt.plot(np.array([0., 1.]), [[1, 2], [3, 4]])
        plt.scatter(x, -x, c=[0, 1, 2, 3, 4], s=10)
    """)
    assert code == 0, err
    series = figures_of(session)[0].series
    assert [s.kind for s in series] == ["line", "line", "line", "scatter"]
    np.testing.assert_allclose(series[0].y, np.linspace(0, 1, 5, dtype=np.float32) ** 2, rtol=1e-6)
    assert (series[0].color, series[0].linestyle) == ("#008000", "--")
    np.testing.assert_allclose(series[2].y, [2, 4])          # the second column
    assert series[3].point_colors[0] == "#440154" and series[3].point_colors[-1] == "#fde725"  # viridis
    assert series[3].size == 10


def test_a_tensor_that_requires_grad_fails_as_with_real_matplotlib():
    code, _, err, _ = run("""
        import torch
        import matplotlib.pyplot as plt
        w = torch.ones(3, requires_grad=True)
        plt.plot(w.detach())
        plt.plot(w * 2)
    """)
    assert code == 1
    assert err == ("s.ag:6:1: RuntimeError: Can't call numpy() on Tensor that requires grad. Use "
                   "tensor.detach().numpy() instead.\n    plt.plot(w * 2)\n    ^^^^^^^^^^^^^^^\n")


@pytest.mark.parametrize("line, message", [
    ("plt.hist([1, 2])", "AttributeError: gradcli's matplotlib.pyplot does not support plt.hist"),
    ("plt.xlable('x')", "AttributeError: gradcli's matplotlib.pyplot does not support plt.xlable. "
                        "Did you mean: 'xlabel'?"),
    ("plt.gca().hist([1])", "AttributeError: gradcli's matplotlib.pyplot does not support Axes.hist"),
    ("plt.subplots(2, 1)", "NotImplementedError: gradcli's matplotlib.pyplot draws one axes per figure: "
                           "plt.subplots(2, 1) is not supported (draw each panel in a figure of its own)"),
    ("plt.subplot(2, 1, 1)", "NotImplementedError: gradcli's matplotlib.pyplot draws one axes per figure: "
                             "plt.subplot(2, 1, 1) is not supported"),
    ("plt.plot([1, 2], 'q')", "ValueError: 'q' is not a valid format string (unrecognized character 'q')"),
    ("plt.plot([1, 2], [1, 2, 3])", "ValueError: x and y must have same first dimension, but have shapes "
                                    "(2,) and (3,)"),
    ("plt.plot([1, 2], foo=1)", "AttributeError: Line2D.set() got an unexpected keyword argument 'foo'"),
    ("plt.scatter([1, 2], [1])", "ValueError: x and y must be the same size"),
    ("plt.plot([1], color='nocolor')", "ValueError: 'nocolor' is not a valid value for color"),
])
def test_errors_are_located_and_say_what_is_unsupported(line, message):
    code, _, err, _ = run(f"import matplotlib.pyplot as plt\n{line}\n")
    assert code == 1
    first = err.splitlines()[0]
    assert first.startswith("s.ag:2:") and message in first, err
    assert err.splitlines()[1] == "    " + line


def test_an_unknown_pyplot_name_can_be_caught_as_attribute_error():
    code, out, _, _ = run("""
        import matplotlib.pyplot as plt
        try:
            plt.imshow
        except AttributeError as error:
            print("caught:", error)
        print(hasattr(plt, "plot"), hasattr(plt, "imshow"))
    """)
    assert (code, out) == (0, "caught: gradcli's matplotlib.pyplot does not support plt.imshow\nTrue False\n")


def test_the_object_interface_and_reprs():
    code, out, err, session = run("""
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 3))
        lines = ax.plot([0, 1], [1, 0], label="down")
        ax.set_xlabel("x")
        ax.set_title("t")
        print(fig, ax, len(lines), plt.xlabel("x"), plt.ylabel("y"), plt.title("t"))
        print(plt.gca() is ax, plt.gcf() is fig, fig.number)
        plt.close()
        print(plt.gcf() is fig)
    """)
    assert code == 0, err
    # (print's arguments are all evaluated first: the ylabel is set when ax is printed)
    assert out == ("<Figure size 500x300 with 1 Axes> <Axes: title={'center': 't'}, xlabel='x', ylabel='y'> 1 "
                   "Text(0.5, 0, 'x') Text(0, 0.5, 'y') Text(0.5, 1.0, 't')\nTrue True 1\nFalse\n")
    assert err == ""     # never shown: nothing drawn
    assert figures_of(session) == []     # closed before it was shown or saved: gone, as in matplotlib


def test_a_figure_left_open_is_kept_for_the_report():
    _, _, err, session = run("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.title('left open')\n")
    assert err == ""
    assert [f.title for f in figures_of(session)] == ["left open"]


@pytest.mark.parametrize("fmt, expected", [
    ("r--", ("--", None, "#ff0000")),
    ("o", (None, "o", None)),
    ("ks-", ("-", "s", "#000000")),
    ("C1", (None, None, "#ff7f0e")),
    ("red", (None, None, "#ff0000")),
    ("0.5", (None, None, "#808080")),
    ("1", (None, "1", None)),         # the tri_down marker, not a grey level
    (":", (":", None, None)),
    ("-.g", ("-.", None, "#008000")),
])
def test_format_strings_read_as_matplotlib_reads_them(fmt, expected):
    assert parse_format(fmt) == expected


@pytest.mark.parametrize("fmt, why", [("--:", "two linestyle symbols"), ("ox", "two marker symbols"),
                                      ("rb", "two color symbols"), ("Cx", "'C' must be followed by a number")])
def test_bad_format_strings(fmt, why):
    from gradcli.lang.errors import ScriptValueError
    with pytest.raises(ScriptValueError, match=f"is not a valid format string \\({why}\\)"):
        parse_format(fmt)


def test_legend_without_labels_warns_as_matplotlib_does():
    code, _, err, _ = run("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.legend()\n")
    assert code == 0
    assert err.startswith("s.ag:3:1: UserWarning: No artists with labels found to put in legend.")


def test_show_draws_each_open_figure_then_closes_them():
    code, _, err, session = run("""
        import matplotlib.pyplot as plt
        plt.show()
        plt.figure(); plt.plot([1, 2]); plt.title("one")
        plt.figure(); plt.plot([2, 1]); plt.title("two")
        plt.show()
        plt.show()
    """)
    assert code == 0
    titles = [line.strip() for line in err.splitlines() if line.strip() in ("one", "two")]
    assert titles == ["one", "two"]
    assert [f.title for f in figures_of(session)] == ["one", "two"]


def test_figures_for_the_report_as_svg():
    _, _, _, session = run("""
        import matplotlib.pyplot as plt
        plt.plot([1, 3, 2], label="a")
        plt.scatter([0, 1], [1, 2], label="b")
        plt.legend()
        plt.xlabel("epoch")
        plt.show()
    """)
    (figure,) = figures_of(session)
    svg = figure_svg(figure)
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg" and root.get("width") == "640"
    assert len(root.findall(f"{ns}polyline[@stroke='#1f77b4']")) == 2      # the line, its legend sample
    assert len(root.findall(f"{ns}circle[@fill='#ff7f0e']")) == 3          # two points, one in the legend
    assert {"epoch", "a", "b"} <= {t.text for t in root.iter(ns + "text")}


def test_the_import_hint_names_matplotlib():
    code, _, err, _ = run("import seaborn\n")
    assert code == 1
    assert "and matplotlib.pyplot (drawn in the terminal)" in err


def test_empty_and_single_values_and_gaps():
    code, _, err, session = run("""
        import matplotlib.pyplot as plt
        plt.plot([])
        plt.plot(5)
        plt.plot([float("nan"), 1, float("inf"), 2, 3])
        plt.show()
    """)
    assert code == 0, err
    empty, single, gappy = figures_of(session)[0].series
    assert (empty.x.size, list(single.x), list(single.y)) == (0, [0.0], [5.0])
    assert list(gappy.finite) == [False, True, False, True, True]


def test_a_value_far_outside_the_limits_is_clipped_not_walked():
    # without clipping, the canvas would step through ~1e300 dots between the two points
    code, _, err, _ = run("""
        import matplotlib.pyplot as plt
        plt.plot([0, 1], [0, 1e300])
        plt.ylim(0, 1)
        plt.show()
    """, timeout=10)
    assert code == 0, err
    assert "1.0 ┤" in err
