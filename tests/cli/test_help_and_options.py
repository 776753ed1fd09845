"""The help as a user reads it, -V, shell completion, option errors, REPL options without `repl`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gradcli
from cli_helpers import ANSI, command_names, environment, flowing, gradcli_process

# What an unfinished help shows: a type after a flag or an argument (<bool>, <str>,
# <int range>, ...), braces around an argument ({FILE}).
UNFINISHED = re.compile(r"<[a-z][a-z_ \[\],|]*>|\{[A-Z]+\}")


# ---------------------------------------------------------------- help

def test_the_commands_are_run_eval_repl():
    # a new command gets its help checked below by being listed here
    assert command_names() == ["eval", "explain", "graph", "plot", "repl", "report", "run"]


@pytest.mark.parametrize("command", [[], ["run"], ["eval"], ["repl"], ["graph"], ["explain"], ["plot"], ["report"]],
                         ids=lambda c: " ".join(c) or "gradcli")
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_has_no_type_placeholders(command, flag):
    result = gradcli_process(*command, flag)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "Usage: gradcli" in result.stdout
    assert not UNFINISHED.search(result.stdout), result.stdout


@pytest.mark.parametrize("command", [[], ["run"], ["eval"], ["repl"], ["graph"], ["explain"], ["plot"], ["report"]],
                         ids=lambda c: " ".join(c) or "gradcli")
def test_coloured_help_has_no_type_placeholders_either(command):
    result = gradcli_process(*command, "--help", NO_COLOR=None, FORCE_COLOR="1")
    assert "\x1b[" in result.stdout
    assert not UNFINISHED.search(ANSI.sub("", result.stdout))


def test_usage_lines_name_the_arguments_as_click_does():
    assert "Usage: gradcli [OPTIONS] [COMMAND] [ARGS]..." in gradcli_process("--help").stdout
    assert "Usage: gradcli run [OPTIONS] FILE" in gradcli_process("run", "--help").stdout
    assert "Usage: gradcli eval [OPTIONS] CODE" in gradcli_process("eval", "--help").stdout
    assert "Usage: gradcli repl [OPTIONS]" in gradcli_process("repl", "--help").stdout
    assert "Usage: gradcli graph [OPTIONS] FILE [NAME]..." in gradcli_process("graph", "--help").stdout
    assert "Usage: gradcli report [OPTIONS] FILE" in gradcli_process("report", "--help").stdout
    missing = gradcli_process("run")
    assert missing.returncode == 2
    assert "Usage: gradcli run [OPTIONS] FILE" in missing.stderr
    assert "Missing argument 'FILE'." in missing.stderr


def test_flags_show_no_value_and_valued_options_their_metavar():
    text = gradcli_process("run", "--help").stdout
    rows = {line.split()[1]: line for line in text.splitlines() if line.startswith("│ -")}
    for flag in ("--echo", "--no-color", "--debug", "--no-hints", "--help"):
        # the flag (and -h), then its help text at once: no BOOLEAN, no <bool>
        assert re.match(rf"│ {flag}\s+(-h\s+)?[A-Z][a-z]", rows[flag]), rows[flag]
    assert re.match(r"│ --timeout\s+SECONDS \[x>=0\]\s+Stop", rows["--timeout"])
    assert re.match(r"│ --max-elements\s+N \[x>=1\]\s+Refuse", rows["--max-elements"])
    assert re.match(r"│ --seed\s+N\s+Seed", rows["--seed"])
    assert re.search(r"│ \* +FILE +The \.ag script", text)


def test_main_help_lists_version_completion_and_the_repl_options():
    text = gradcli_process("--help").stdout
    assert re.search(r"--version\s+-V\s", text)
    assert "--install-completion" in text and "--show-completion" in text
    assert re.search(r"--help\s+-h\s", text)
    assert "REPL options" in text
    for option in ("--no-color", "--debug", "--no-hints", "--timeout", "--max-elements", "--seed"):
        assert option in text
    for command in command_names():
        assert re.search(rf"│ {command} ", text)


def test_repl_help_speaks_of_the_repl():
    text = flowing(gradcli_process("repl", "--help").stdout)
    assert "script" not in text.replace("python script.py", "")
    assert "Stop any one input after this many seconds." in text
    assert "when the REPL starts" in text
    assert "REPL" in text


def test_each_command_says_what_its_timeout_and_seed_apply_to():
    run, eval_ = (flowing(gradcli_process(command, "--help").stdout) for command in ("run", "eval"))
    assert "Stop the script after this many seconds." in run
    assert "before the script runs" in run
    assert "Stop CODE after this many seconds." in eval_
    assert "before CODE runs" in eval_


# ---------------------------------------------------------------- -V, option errors

@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_short_and_long(flag):
    expected = f"gradcli {gradcli.__version__} (reproduces PyTorch {gradcli.TORCH_VERSION})\n"
    result = gradcli_process(flag)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")
    typer_result = CliRunner().invoke(_app(), [flag])   # the Typer path gives the same line
    assert (typer_result.exit_code, typer_result.stdout) == (0, expected)


def _app():
    from gradcli.cli import build_app
    return build_app()


@pytest.mark.parametrize("command", [["run"], ["eval"], ["repl"], []], ids=lambda c: " ".join(c) or "gradcli")
def test_a_bad_seed_says_what_click_says(command):
    tail = {"run": ["x.ag"], "eval": ["1"]}.get(command[0] if command else "", [])
    for seed in (["--seed", "abc"], ["--seed=abc"]):
        result = gradcli_process(*command, *seed, *tail, input="")
        assert result.returncode == 2
        assert "Invalid value for '--seed': 'abc' is not an integer." in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--seed", "1.5"], "Invalid value for '--seed': '1.5' is not an integer."),
    (["--seed", str(2**64)], f"Invalid value for '--seed': {2**64} is not in the range"),
    (["--max-elements", "0"], "Invalid value for '--max-elements': 0 is not in the range x>=1."),
    (["--max-elements", "ten"], "Invalid value for '--max-elements': 'ten' is not an integer."),
    (["--timeout", "soon"], "Invalid value for '--timeout': 'soon' is not a number."),
    (["--timeout", "nan"], "Invalid value for '--timeout': 'nan' is not a number."),
    (["--timeout", "-1"], "Invalid value for '--timeout': -1 is not in the range x>=0."),
])
def test_other_bad_values(args, message):
    result = gradcli_process("eval", *args, "1")
    assert result.returncode == 2
    assert message in result.stderr


def test_the_extreme_seeds_torch_accepts_are_accepted():
    for seed in (str(-2**63), str(2**64 - 1)):
        result = gradcli_process("eval", "--seed", seed, "randn(1).shape")
        assert (result.returncode, result.stdout, result.stderr) == (0, "torch.Size([1])\n", "")


# ---------------------------------------------------------------- REPL options without `repl`

def test_repl_options_work_without_the_repl_word():
    same = gradcli_process("repl", "--seed", "0", "--no-color", input="randn(2)\n")
    assert same.returncode == 0 and same.stdout.startswith("tensor(")
    for args in (["--seed", "0", "--no-color"], ["--no-color", "--seed=0"], ["--seed", "0", "repl"]):
        result = gradcli_process(*args, input="randn(2)\n")
        assert (result.returncode, result.stdout, result.stderr) == (0, same.stdout, ""), args


def test_repl_options_without_repl_through_typer(monkeypatch):
    """The Typer app (which a command line the fast path does not take reaches) knows them too."""
    import gradcli.cli as cli
    seen = []
    monkeypatch.setattr(cli, "start_repl", lambda **options: seen.append(options) or 0)
    result = CliRunner().invoke(cli.build_app(), ["--no-hints", "--debug", "--timeout", "5",
                                                  "--max-elements", "9", "--seed", "3", "--no-color",
                                                  "--plot-dir", "figures"])
    assert result.exit_code == 0, result.output
    assert seen == [{"no_color": True, "debug": True, "no_hints": True, "timeout": 5.0, "max_elements": 9,
                     "max_memory": None, "plot_dir": "figures", "seed": 3}]
    assert CliRunner().invoke(cli.build_app(), []).exit_code == 0   # no arguments at all: the REPL
    assert seen[-1] == {"no_color": False, "debug": False, "no_hints": False, "timeout": None,
                        "max_elements": None, "max_memory": None, "plot_dir": None, "seed": None}


def test_repl_options_without_repl_end_to_end():
    result = gradcli_process("--no-hints", "--timeout", "5", "--max-elements", "9",
                             input="x = ones(2, grad)\nx.backward()\nones(10)\n")
    assert result.stdout == ""
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in result.stderr
    assert "hint:" not in result.stderr
    assert "the limit is 9 (see --max-elements)" in result.stderr


def test_unknown_option_without_a_command_is_a_usage_error():
    result = gradcli_process("--echo", input="")
    assert result.returncode == 2
    assert "No such option: --echo" in result.stderr


@pytest.mark.parametrize("argv, expected", [
    (["--no-color"], ("repl", None, {"no_color": True})),
    (["--seed", "0", "--no-hints"], ("repl", None, {"seed": 0, "no_hints": True})),
    (["--timeout=2.5"], ("repl", None, {"timeout": 2.5})),
    (["--help"], None),
    (["-h"], None),
    (["-V"], None),
    (["--install-completion"], None),
    (["--seed", "abc"], None),
    (["--no-color", "run", "x.ag"], None),    # options before a command: Typer
    (["-"], None),
])
def test_fast_path_reads_options_without_a_command_as_the_repl(argv, expected):
    from gradcli.cli import parse_fast_path
    assert parse_fast_path(argv) == expected


def test_options_before_a_command_apply_to_it(monkeypatch):
    import gradcli.cli as cli
    seen = []
    monkeypatch.setattr(cli, "eval_code", lambda code, **options: seen.append(options) or 0)
    runner = CliRunner()
    assert runner.invoke(cli.build_app(), ["--seed", "7", "--no-color", "eval", "--timeout", "1", "1"]).exit_code == 0
    assert runner.invoke(cli.build_app(), ["--seed", "7", "eval", "--seed", "8", "1"]).exit_code == 0
    assert seen == [
        {"trace_backward": False, "json": False, "no_color": True, "debug": False, "no_hints": False,
         "timeout": 1.0, "max_elements": None, "max_memory": None, "plot_dir": None, "seed": 7},
        {"trace_backward": False, "json": False, "no_color": False, "debug": False, "no_hints": False,
         "timeout": None, "max_elements": None, "max_memory": None, "plot_dir": None, "seed": 8},
    ]


def test_fast_path_options_match_the_main_options():
    import typer.main

    from gradcli.cli import FLAGS, VALUED, build_app
    group = typer.main.get_command(build_app())
    options = {opt for param in group.params for opt in param.opts if opt.startswith("--")}
    assert options - {"--version", "--install-completion", "--show-completion", "--help"} == \
        FLAGS["repl"] | set(VALUED)


# ---------------------------------------------------------------- shell completion

def _shell_or_skip(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


@pytest.fixture
def shell_env(tmp_path):
    """An environment whose PATH has a `gradcli` running this checkout, and whose HOME is empty.

    The completion scripts call gradcli by name, and Typer names them after the
    program: it must be `gradcli`, not `python -m gradcli`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "gradcli"
    command.write_text(f"#!/bin/sh\nexec '{sys.executable}' -c 'import sys; sys.argv[0] = \"gradcli\"; "
                       f"from gradcli.cli import main; main()' \"$@\"\n")
    command.chmod(0o755)
    (tmp_path / "home").mkdir()
    return environment(HOME=str(tmp_path / "home"), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def _in_shell(shell: str, command: str, env: dict, **kwargs) -> subprocess.CompletedProcess:
    executable = shutil.which(shell)
    if executable is None:
        pytest.skip(f"{shell} is not installed")
    # `true` after it keeps the shell as gradcli's parent (Typer asks the process tree which shell it runs in)
    return subprocess.run([executable, "-c", f"{command}\ntrue"], capture_output=True, text=True, env=env,
                          timeout=120, **kwargs)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_for_the_current_shell(shell, shell_env):
    result = _in_shell(shell, "gradcli --show-completion", shell_env)
    assert result.returncode == 0, result.stderr
    assert f"_GRADCLI_COMPLETE=complete_{shell}" in result.stdout


@pytest.mark.parametrize("shell, installed", [
    ("bash", ".bash_completions/gradcli.sh"),
    ("zsh", ".zfunc/_gradcli"),
    ("fish", ".config/fish/completions/gradcli.fish"),
])
def test_install_completion(shell, installed, shell_env):
    result = _in_shell(shell, "gradcli --install-completion", shell_env)
    assert result.returncode == 0, result.stderr
    assert f"{shell} completion installed in" in result.stdout
    script = (Path(shell_env["HOME"]) / installed).read_text()
    assert f"_GRADCLI_COMPLETE=complete_{shell}" in script


def test_bash_completion_completes_commands_and_options(shell_env):
    script = _in_shell("bash", "gradcli --show-completion", shell_env).stdout
    probe = script + """
complete_words() {
    read -ra COMP_WORDS <<< "$1"
    [[ "$1" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    _gradcli_completion gradcli
    echo "${COMPREPLY[*]}"
}
complete_words "gradcli r"
complete_words "gradcli run --s"
complete_words "gradcli --no-c"
complete_words "gradcli "
"""
    # stdin is a pipe: had gradcli taken the request for `gradcli` alone, its REPL would run this
    result = _in_shell("bash", probe, shell_env, input="print('the REPL ran')\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["run repl report", "--seed", "--no-color",
                                          "run eval repl graph explain plot report"]


@pytest.mark.parametrize("shell, request_env", [
    ("zsh", {"_TYPER_COMPLETE_ARGS": "gradcli r"}),
    ("fish", {"_TYPER_COMPLETE_ARGS": "gradcli r", "_TYPER_COMPLETE_FISH_ACTION": "get-args"}),
])
def test_zsh_and_fish_completion_requests(shell, request_env, shell_env):
    result = _in_shell(shell, "gradcli", {**shell_env, **request_env, "_GRADCLI_COMPLETE": f"complete_{shell}"},
                       input="print('the REPL ran')\n")
    assert result.returncode == 0, result.stderr
    assert "run" in result.stdout and "repl" in result.stdout and "eval" not in result.stdout
    assert "the REPL ran" not in result.stdout
