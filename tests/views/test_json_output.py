"""``gradcli run --json`` / ``eval --json``: one document on stdout, valid against the schema in
the package, telling what a plain run prints and reports, with the same exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from gradcli.cli import eval_code, run_file
from gradcli.views.json_output import SCHEMA_PATH
from view_scripts import TUTORIAL_SOURCE

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

TUTORIAL = TUTORIAL_SOURCE
FAILING = """\
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
print('before')
y.backward()
"""


def strict_json(text: str) -> dict:
    """JSON as the standard has it: NaN and Infinity are not numbers there."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def run_json(capsys, text: str, tmp_path: Path, *args: str, **options) -> tuple[dict, str, int]:
    script = tmp_path / "script.ag"
    script.write_text(text, encoding="utf-8")
    code = run_file(str(script), json=True, no_color=True, **options)
    captured = capsys.readouterr()
    document = strict_json(captured.out)      # the whole of stdout is the one document
    VALIDATOR.validate(document)
    return document, captured.err, code


def plain_run(capsys, text: str, tmp_path: Path, **options) -> tuple[str, str, int]:
    script = tmp_path / "script.ag"
    script.write_text(text, encoding="utf-8")
    code = run_file(str(script), no_color=True, **options)
    captured = capsys.readouterr()
    return captured.out, captured.err, code


def variable(document: dict, name: str) -> dict:
    return next(v for v in document["variables"] if v["name"] == name)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_a_run_that_ends_well(capsys, tmp_path):
    document, err, code = run_json(capsys, TUTORIAL, tmp_path)
    out, plain_err, plain_code = plain_run(capsys, TUTORIAL, tmp_path)
    assert (code, document["exit_code"], document["status"]) == (plain_code, 0, "ok") == (0, 0, "ok")
    assert "\n".join(document["output"]) + "\n" == out
    assert document["output_ends_with_newline"] is True
    assert document["error"] is None and document["warnings"] == [] and err == plain_err == ""
    assert document["file"].endswith("script.ag")
    assert [v["name"] for v in document["variables"]] == ["torch", "x", "y", "z", "out"]
    assert variable(document, "torch") == {"name": "torch", "kind": "module", "type": "module"}
    x = variable(document, "x")
    assert x["shape"] == [2, 2] and x["dtype"] == "torch.float32" and x["values"] == [1.0] * 4
    assert (x["requires_grad"], x["is_leaf"], x["grad_fn"]) == (True, True, None)
    assert x["grad"]["values"] == [4.5] * 4 and x["grad"]["shape"] == [2, 2]
    assert "grad" not in x["grad"]           # a gradient's own gradient is not given
    out_var = variable(document, "out")
    assert out_var["shape"] == [] and out_var["values"] == [27.0] and out_var["grad_fn"] == "MeanBackward0"
    assert out_var["grad"] is None and out_var["is_leaf"] is False


def test_an_error_is_located_with_its_hint_and_the_stderr_text_is_unchanged(capsys, tmp_path):
    document, err, code = run_json(capsys, FAILING, tmp_path)
    _, plain_err, plain_code = plain_run(capsys, FAILING, tmp_path)
    assert code == plain_code == document["exit_code"] == 1 and document["status"] == "error"
    assert err == plain_err                  # the diagnostics still go to stderr, as they were
    assert document["output"] == ["before"]
    error = document["error"]
    assert error["kind"] == "error" and error["type"] == "RuntimeError"
    assert error["message"] == "grad can be implicitly created only for scalar outputs"
    assert (error["line"], error["column"], error["end_line"], error["end_column"]) == (5, 1, 5, 13)
    assert error["file"].endswith("script.ag")
    assert error["hint"].startswith("backward() needs a single number, but this output has shape [2]")
    assert f"{error['type']}: {error['message']}" in err and f"hint: {error['hint']}" in err
    assert [v["name"] for v in document["variables"]] == ["torch", "x", "y"]   # as far as it got


def test_no_hints_leaves_the_hint_out(capsys, tmp_path):
    document, err, _ = run_json(capsys, FAILING, tmp_path, no_hints=True)
    assert document["error"]["hint"] is None and "hint:" not in err


def test_a_syntax_error(capsys, tmp_path):
    document, err, code = run_json(capsys, "x = 1\ny = (x +\n", tmp_path)
    assert code == 1 and document["status"] == "error" and document["variables"] == []
    error = document["error"]
    assert error["kind"] == "syntax-error" and error["type"] == "SyntaxError"
    assert error["message"] == "'(' was never closed"
    assert (error["line"], error["column"]) == (2, 5)
    assert err.startswith(f"{error['file']}:2:5: SyntaxError: '(' was never closed")


def test_a_name_error_suggests_the_name_in_its_message(capsys, tmp_path):
    document, _, _ = run_json(capsys, "value = 1\nprint(valeu)\n", tmp_path)
    assert document["error"]["type"] == "NameError"
    assert document["error"]["message"] == "name 'valeu' is not defined. Did you mean: 'value'?"
    assert (document["error"]["line"], document["error"]["column"], document["error"]["end_column"]) == (2, 7, 12)


def test_eval_gives_the_last_expression_as_output(capsys):
    code = eval_code("x = ones(2, grad); y = mean((x + 2) ** 2); backward(y); x.grad", json=True)
    document = strict_json(capsys.readouterr().out)
    VALIDATOR.validate(document)
    assert code == 0 and document["file"] == "<eval>"
    assert document["output"] == ["tensor([3., 3.])"]
    assert variable(document, "x")["grad"]["values"] == [3.0, 3.0]
    assert variable(document, "y")["values"] == [9.0]


def test_warnings_say_where_and_after_which_output_line(capsys, tmp_path):
    text = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(1)\nprint(y.grad)\nprint(2, end='')\n"
    document, err, code = run_json(capsys, text, tmp_path)
    assert code == 0 and document["output"] == ["1", "None", "2"]
    assert document["output_ends_with_newline"] is False
    [warning] = document["warnings"]
    assert warning["type"] == "UserWarning" and warning["message"].startswith("The .grad attribute of a Tensor")
    assert (warning["line"], warning["column"], warning["after_line"]) == (5, 7, 1)
    assert f"UserWarning: {warning['message']}" in err


def test_values_non_finite_floats_truncation_and_other_kinds(capsys, tmp_path):
    text = """\
import torch
z = torch.tensor([float('nan'), float('inf'), -float('inf'), 0.1])
d = torch.tensor([0.1], dtype=torch.float64)
i = torch.arange(250)
b = torch.tensor([True, False])
def f(a):
    return a
class Point:
    def __repr__(self):
        print('a repr that prints')
        return 'Point()'
p = Point()
s = 'x' * 300
n = None
nan = float('nan')
shape = z.shape
"""
    document, _, _ = run_json(capsys, text, tmp_path)
    assert variable(document, "z")["values"] == ["nan", "inf", "-inf", 0.1]     # float32 0.1 as 0.1
    assert variable(document, "d")["values"] == [0.1]
    i = variable(document, "i")
    assert i["values"] == list(range(100)) and i["truncated"] is True and i["numel"] == 250
    assert i["dtype"] == "torch.int64"
    assert variable(document, "b")["values"] == [True, False]
    assert variable(document, "f") == {"name": "f", "kind": "function", "type": "function"}
    assert variable(document, "Point") == {"name": "Point", "kind": "class", "type": "type"}
    assert variable(document, "p") == {"name": "p", "kind": "value", "type": "__main__.Point", "repr": "Point()",
                                       "truncated": False}
    assert "a repr that prints" not in document["output"]
    s = variable(document, "s")
    assert s["truncated"] is True and len(s["repr"]) == 200 and "value" not in s
    assert variable(document, "n")["value"] is None
    assert variable(document, "nan")["value"] == "nan"
    assert variable(document, "shape")["repr"] == "torch.Size([4])"


def test_the_schema_rejects_what_the_document_must_not_hold(capsys, tmp_path):
    document, _, _ = run_json(capsys, TUTORIAL, tmp_path)
    x = variable(document, "x")
    broken = [
        {**document, "extra": 1},
        {**document, "status": "fine"},
        {**document, "variables": [{**x, "values": ["NaN"]}]},               # only "nan", "inf", "-inf"
        {**document, "variables": [{**x, "colour": "red"}]},
        {**document, "variables": [{**x, "grad": {**x["grad"], "grad": None}}]},
        {**document, "variables": [{"name": "torch", "kind": "module", "type": "module", "repr": "m"}]},
        {**document, "error": {"kind": "warning", "type": "UserWarning", "message": "", "file": None,
                               "line": None, "column": None, "end_line": None, "end_column": None,
                               "hint": None}},
    ]
    for document in broken:
        assert not VALIDATOR.is_valid(document)


def test_the_command_line_writes_only_the_document_on_stdout():
    """Through the real entry point, both the fast path and Typer's (an option before FILE)."""
    env = {"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    for args in (["run", "--json", "-"], ["--no-hints", "run", "--json", "-"]):
        done = subprocess.run([sys.executable, "-m", "gradcli", *args], input=FAILING, capture_output=True,
                              text=True, env=env, timeout=60, cwd=ROOT)
        document = strict_json(done.stdout)
        VALIDATOR.validate(document)
        assert done.returncode == document["exit_code"] == 1 and document["file"] == "<stdin>"
        assert "RuntimeError: grad can be implicitly created only for scalar outputs" in done.stderr


def test_a_plain_run_does_not_load_the_json_view(tmp_path):
    script = tmp_path / "s.ag"
    script.write_text("print(1)\n", encoding="utf-8")
    probe = ("import sys; from gradcli.cli import run_file; run_file(sys.argv[1]); "
             "print(sorted(m for m in sys.modules if m.startswith('gradcli.views')))")
    done = subprocess.run([sys.executable, "-c", probe, str(script)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60, cwd=ROOT)
    assert done.stdout.splitlines() == ["1", "[]"]


@pytest.mark.parametrize("sample", sorted((ROOT / "samples").glob("*.ag")), ids=lambda p: p.name)
def test_every_sample_gives_a_valid_document(capsys, sample):
    code = run_file(str(sample), json=True, no_color=True, seed=0)
    document = strict_json(capsys.readouterr().out)
    VALIDATOR.validate(document)
    assert code == document["exit_code"]


def test_the_layout_reads_back_as_the_same_value():
    from gradcli.views.json_output import dumps

    value = {"a": [], "b": {}, "c": [1, "nan", None, True], "d": [{"e": ["x", "y"]}, [1.5, [2]]], "f": "é"}
    text = dumps(value)
    assert json.loads(text) == value
    assert '"c": [1, "nan", null, true]' in text and '"e": [\n' in text and "é" in text
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})      # never a bare NaN in the document
