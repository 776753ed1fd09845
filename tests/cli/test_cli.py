"""The command line: run, eval, options, exit codes, and never a traceback by accident."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent.parent / "lang"))

import fake_engine  # noqa: E402

import gradcli  # noqa: E402
from gradcli.cli import app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def engine(monkeypatch):
    """The CLI builds its Session on gradcli.engine.api; point that at the test fake."""
    import gradcli.engine
    fake = fake_engine.make_engine()
    monkeypatch.setitem(sys.modules, "gradcli.engine.api", fake)
    monkeypatch.setattr(gradcli.engine, "api", fake, raising=False)
    return fake


@pytest.fixture
def cli(engine):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(app, list(args), input=input)
    return invoke


def test_run_file(cli, tmp_path):
    script = tmp_path / "demo.ag"
    script.write_text("x = ones(2, grad)\nprint(x, x.requires_grad)\n")
    result = cli("run", str(script))
    assert result.exit_code == 0
    assert result.stdout == "tensor([1.0, 1.0]) True\n"


def test_run_stdin(cli):
    result = cli("run", "-", input="print(6 * 7)\n")
    assert (result.exit_code, result.stdout) == (0, "42\n")


def test_run_missing_file(cli, tmp_path):
    result = cli("run", str(tmp_path / "nope.ag"))
    assert result.exit_code == 2
    assert "gradcli: cannot read" in result.stderr and "No such file or directory" in result.stderr


def test_script_error_exit_status_and_report(cli, tmp_path):
    script = tmp_path / "bad.ag"
    script.write_text("print('before')\nprint('loss: ' + 1)\n")
    result = cli("run", str(script))
    assert result.exit_code == 1
    assert result.stdout == "before\n"
    assert result.stderr.splitlines() == [
        f"{script}:2:7: TypeError: can only concatenate str (not \"int\") to str",
        "    print('loss: ' + 1)",
        "          ^^^^^^^^^^^^",
    ]


def test_eval_echoes_last_expression(cli):
    assert cli("eval", "x = 2; y = x * 21; y").stdout == "42\n"
    assert cli("eval", "x = 2").stdout == ""
    assert cli("eval", "1; 2; print('p'); 3").stdout == "p\n3\n"


def test_eval_error_names_eval(cli):
    result = cli("eval", "1 / 0")
    assert result.exit_code == 1
    assert result.stderr.startswith("<eval>:1:1: ZeroDivisionError: division by zero\n")


def test_run_echo(cli, tmp_path):
    script = tmp_path / "echo.ag"
    script.write_text("1 + 1\nx = 3\nx\nprint('p')\nNone\n")
    assert cli("run", "--echo", str(script)).stdout == "2\n3\np\n"
    assert cli("run", str(script)).stdout == "p\n"


def test_seed_and_max_elements_reach_the_engine(cli, engine):
    result = cli("eval", "--seed", "7", "--max-elements", "100", "1")
    assert result.exit_code == 0
    assert engine.calls == [("set_max_elements", 100), ("manual_seed", 7)]


def test_no_hints(cli):
    code = "backward(tensor([1., 2.]))"
    assert "hint:" in cli("eval", code).stderr
    assert "hint:" not in cli("eval", "--no-hints", code).stderr


def test_internal_error(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    result = cli("eval", "broken()")
    assert result.exit_code == 70
    saved = next((tmp_path / "gradcli" / "internal-errors").iterdir())
    assert result.stderr == ("gradcli: internal error: IndexError: list index out of range "
                             f"(this is a bug in gradcli; the traceback is in {saved})\n")
    assert "Traceback (most recent call last)" in saved.read_text()
    debug = cli("eval", "--debug", "broken()")
    assert debug.exit_code == 70
    assert "Traceback (most recent call last)" in debug.stderr


def test_keyboard_interrupt_stops_with_130(cli):
    result = cli("eval", "print(1); interrupt(); print(2)")
    assert result.exit_code == 130
    assert result.stdout == "1\n"
    assert result.stderr.startswith("<eval>:1:11: KeyboardInterrupt")
    assert "Traceback" not in result.stderr


def test_timeout(cli):
    result = cli("eval", "--timeout", "0.2", "n = 0\nwhile True: n += 1")
    assert result.exit_code == 1
    assert "TimeoutError: the script ran longer than the time limit of 0.2 s (--timeout)" in result.stderr


def test_version_and_help(cli):
    version = cli("--version")
    assert version.exit_code == 0
    assert version.stdout == f"gradcli {gradcli.__version__} (reproduces PyTorch {gradcli.TORCH_VERSION})\n"
    help_text = cli("--help").stdout
    assert "run" in help_text and "eval" in help_text and "Examples" in help_text


def test_color_only_on_a_terminal(monkeypatch):
    from gradcli.lang.output import wants_color

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_color(Terminal()) is True
    assert wants_color(io.StringIO()) is False
    assert wants_color(Terminal(), no_color_flag=True) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert wants_color(Terminal()) is False


def test_colored_output_has_the_same_characters():
    import re

    from gradcli.lang.output import RichOutput
    stream = io.StringIO()
    output = RichOutput(stream)
    text = "tensor([[1.5000, -2.0000]], grad_fn=<AddBackward0>) 'x' True [1, 2]\n"
    output.write(text)
    colored = stream.getvalue()
    assert "\x1b[" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == text


def _gradcli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True,
                          env=env, timeout=60, **kwargs)


def test_python_dash_m_version():
    result = _gradcli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith(f"gradcli {gradcli.__version__} ")


def test_no_arguments_opens_the_repl():
    result = _gradcli(input="x = 6 * 7\nx\n")
    assert (result.returncode, result.stdout, result.stderr) == (0, "42\n", "")


def test_fast_path_parses_like_typer():
    """The hand parser of run/eval knows exactly the options the Typer commands declare."""
    import typer.main

    from gradcli.cli import FLAGS, VALUED, build_app
    group = typer.main.get_command(build_app())
    for name in ("run", "eval", "repl"):
        options = {opt for param in group.commands[name].params for opt in param.opts
                   if opt.startswith("--") and opt != "--help"}
        assert options == FLAGS[name] | set(VALUED)


@pytest.mark.parametrize("argv, expected", [
    (["run", "a.ag"], ("run", "a.ag", {})),
    (["run", "--echo", "--seed", "3", "a.ag", "--timeout=1.5"],
     ("run", "a.ag", {"echo": True, "seed": 3, "timeout": 1.5})),
    (["eval", "--max-elements", "10", "--no-color", "1 + 1"],
     ("eval", "1 + 1", {"max_elements": 10, "no_color": True})),
    (["eval", "--", "-1"], ("eval", "-1", {})),
    (["run", "-"], ("run", "-", {})),
    (["eval", "--echo", "1"], None),        # eval has no --echo: Typer reports it
    (["run", "--help"], None),
    (["run", "--seed", "x", "a.ag"], None),
    (["run", "--max-elements", "0", "a.ag"], None),
    (["run"], None),
    (["run", "a.ag", "b.ag"], None),
    (["--version"], None),
    ([], ("repl", None, {})),
    (["repl", "--seed", "1", "--no-color"], ("repl", None, {"seed": 1, "no_color": True})),
    (["repl", "x.ag"], None),
])
def test_fast_path_argument_parsing(argv, expected):
    from gradcli.cli import parse_fast_path
    assert parse_fast_path(argv) == expected


def test_fast_path_end_to_end(tmp_path):
    script = tmp_path / "s.ag"
    script.write_text("import torch\nx = torch.ones(2)\nprint(x.sum())\n")
    result = _gradcli("run", str(script))
    assert (result.returncode, result.stdout, result.stderr) == (0, "tensor(2.)\n", "")
    bad = _gradcli("eval", "x = [1]; x[3]")
    assert bad.returncode == 1
    assert bad.stderr.startswith("<eval>:1:10: IndexError: list index out of range")
    assert "Traceback" not in bad.stderr


def test_ctrl_c_stops_a_real_run_with_130(tmp_path):
    import signal
    script = tmp_path / "loop.ag"
    script.write_text("print('started', flush=True)\nn = 0\nwhile True:\n    n = n + 1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    process = subprocess.Popen([sys.executable, "-m", "gradcli", "run", str(script)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline() == "started\n"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130
    assert f"{script}:" in err and "KeyboardInterrupt" in err
    assert "Traceback" not in err


def test_timeout_stops_a_real_run(tmp_path):
    script = tmp_path / "loop.ag"
    script.write_text("n = 0\nwhile True:\n    n = n + 1\n")
    result = _gradcli("run", "--timeout", "0.3", str(script))
    assert result.returncode == 1
    assert "TimeoutError: the script ran longer than the time limit of 0.3 s (--timeout)" in result.stderr


def test_failure_to_start_is_an_internal_error_not_a_traceback(cli, monkeypatch, tmp_path):
    import gradcli.lang.runtime
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "file"))   # (no folder can be made there)

    def broken_session(**options):
        raise RuntimeError("engine tables missing")
    monkeypatch.setattr(gradcli.lang.runtime, "Session", broken_session)
    result = cli("eval", "1")
    assert result.exit_code == 70
    assert result.stderr == ("gradcli: internal error: RuntimeError: engine tables missing "
                             "(this is a bug in gradcli; run with --debug for the traceback)\n")
