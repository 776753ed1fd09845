"""Tab completion candidates, keyword parameter names, and highlighting as you type."""

from __future__ import annotations

import pytest

from repl_helpers import Captured

from gradcli.repl.completion import complete
from gradcli.repl.highlight import tokens
from gradcli.repl.signatures import parameter_names


@pytest.fixture(scope="module")
def console():
    repl = Captured()
    repl.push("import torch", "import torch.nn.functional as F", "x = ones(2, grad)", "y = (x * 2).sum()",
              "def f(alpha, beta=1, *, gamma=2):", "    return alpha", "", "zebra = 3")
    assert repl.take()[1] == ""
    return repl.console


def texts(before: str, console) -> list[str]:
    return [candidate.text for candidate in complete(before, console)]


@pytest.mark.parametrize("before, expected", [
    ("x.requires", ["requires_grad", "requires_grad_"]),
    ("x.gr", ["grad", "grad_fn"]),
    ("torch.nn.functional.mse", ["mse_loss"]),
    ("F.binary_cross_entropy_w", ["binary_cross_entropy_with_logits"]),
    ("torch.autograd.functional.j", ["jacobian", "jvp"]),
    ("y.grad_fn.next", ["next_functions"]),
    ("zeb", ["zebra"]),
    ("wh", ["where", "while"]),
    ("f(1, be", ["beta="]),
    ("f(1, beta=2, ", ["alpha=", "gamma="]),
    (":sa", [":save"]),
])
def test_candidates(console, before, expected):
    found = texts(before, console)
    assert found[:len(expected)] == expected


def test_keyword_arguments_come_first_inside_a_call(console):
    found = complete("ones(2, re", console)
    assert found[0].text == "requires_grad=" and found[0].meta == "keyword argument"
    assert found[0].start == -2
    assert texts("x.sum(di", console)[0] == "dim="
    assert texts("backward(y, retain", console)[0] == "retain_graph="


def test_keyword_arguments_only_directly_in_the_argument_list(console):
    assert "requires_grad=" not in texts("ones(2, x + re", console)
    assert "requires_grad=" not in texts("ones(2, [re", console)


def test_private_attributes_only_once_an_underscore_is_typed(console):
    assert all(not name.startswith("_") for name in texts("x.", console))


def test_nothing_inside_strings_comments_or_after_calls(console):
    assert texts("print('x.gr", console) == []
    assert texts("# x.gr", console) == []
    assert texts("x.sum().", console) == []
    assert texts("nothing_here.", console) == []
    assert texts("1.", console) == []


def test_descriptions(console):
    described = {c.text: c.meta for c in complete("", console)}
    assert described["x"] == "Tensor [2]"
    assert described["f"] == "function"
    assert described["zebra"] == "int"
    assert described["for"] == "keyword"
    assert {c.text: c.meta for c in complete("x.requires", console)} == {
        "requires_grad": "attribute", "requires_grad_": "method"}


def test_completion_reads_no_non_leaf_grad_warning(console, capsys):
    complete("y.grad.", console)
    assert capsys.readouterr().err == ""


def test_file_names_after_load_and_save(console, tmp_path, monkeypatch):
    (tmp_path / "setup.ag").write_text("")
    (tmp_path / "scripts").mkdir()
    monkeypatch.chdir(tmp_path)
    assert texts(":load s", console) == ["scripts/", "setup.ag"]
    assert [c.start for c in complete(":load se", console)] == [-2]
    assert texts(f":save {tmp_path}/se", console) == ["setup.ag"]
    assert texts(":vars s", console) == []


def test_parameter_names(console):
    session = console.session
    names = session.builtins
    assert parameter_names(names["ones"])[-1] == "requires_grad"
    assert "dtype" in parameter_names(names["tensor"])
    assert parameter_names(names["print"]) == ["sep", "end", "file", "flush"]
    assert "create_graph" in parameter_names(names["grad"])
    assert parameter_names(session.globals["f"]) == ["alpha", "beta", "gamma"]
    assert parameter_names(session.globals["x"].backward)[:2] == ["gradient", "retain_graph"]
    assert "dim" in parameter_names(names["mean"])      # a method form
    assert parameter_names(len) == []
    functional = console.session.globals["F"].members
    assert parameter_names(functional["linear"]) == ["input", "weight", "bias"]
    assert parameter_names(functional["leaky_relu"]) == ["input", "negative_slope", "inplace"]


def test_highlight_tokens_cover_the_text():
    text = 'for i in range(2):\n    y = x ** 2.5  # note\n    print(f"{i}", None)'
    found = tokens(text, {"range", "print"})
    assert "".join(part for _, part in found) == text
    styles = {part: style for style, part in found if style}
    assert styles == {"for": "class:keyword", "in": "class:keyword", "range": "class:builtin",
                      "2": "class:number", "=": "class:operator", "**": "class:operator",
                      "2.5": "class:number", "# note": "class:comment", "print": "class:builtin",
                      'f"{i}"': "class:string", "None": "class:constant"}


def test_highlight_commands_and_open_strings():
    assert tokens(":load x.ag") == [("class:command", ":load"), ("", " x.ag")]
    assert tokens("s = '''a\nb") [-1] == ("class:string", "'''a\nb")
    assert tokens("x.sum") == [("", "x"), ("", "."), ("", "sum")]
