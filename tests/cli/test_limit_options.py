"""--max-memory and the default --timeout on the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent.parent / "lang"))
sys.path.insert(0, str(Path(__file__).parent))

from cli_helpers import gradcli_process  # noqa: E402

import gradcli.cli as cli  # noqa: E402
from gradcli.lang.script_worker import DEFAULT_TIMEOUT  # noqa: E402


@pytest.mark.parametrize("argv, expected", [
    (["eval", "--max-memory", "2G", "1"], ("eval", "1", {"max_memory": 2 << 30})),
    (["run", "--max-memory=512M", "a.ag"], ("run", "a.ag", {"max_memory": 512 << 20})),
    (["eval", "--max-memory", "none", "1"], ("eval", "1", {"max_memory": 0})),
    (["eval", "--timeout", "none", "1"], ("eval", "1", {"timeout": 0.0})),
    (["eval", "--max-memory", "lots", "1"], None),   # Typer says what is wrong
])
def test_the_fast_path_reads_the_limits(argv, expected):
    assert cli.parse_fast_path(argv) == expected


def test_a_bad_size_is_a_usage_error():
    result = CliRunner().invoke(cli.build_app(), ["eval", "--max-memory", "lots", "1"])
    assert result.exit_code == 2
    assert "Invalid value for '--max-memory': 'lots' is not a size" in result.output


def _sessions(monkeypatch) -> list[dict]:
    import gradcli.lang.runtime as runtime
    made = []

    class Recorded(runtime.Session):
        def __init__(self, **options):
            made.append(options)
            super().__init__(**options)
    monkeypatch.setattr(runtime, "Session", Recorded)
    return made


def test_run_and_eval_have_a_time_limit_by_default(monkeypatch):
    made = _sessions(monkeypatch)
    assert cli.eval_code("1") == 0
    assert cli.eval_code("1", timeout=0.0) == 0
    assert cli.eval_code("1", timeout=2.5) == 0
    assert [options["timeout"] for options in made] == [DEFAULT_TIMEOUT, None, 2.5]


def test_max_memory_reaches_the_engine(monkeypatch):
    from gradcli.engine import budget
    before = budget.max_memory()
    try:
        assert cli.eval_code("1", max_memory=3 << 30) == 0
        assert budget.max_memory() == 3 << 30
        assert cli.eval_code("1", max_memory=0) == 0
        assert budget.max_memory() is None
    finally:
        budget.set_max_memory(before)


def test_a_real_run_refuses_past_the_budget():
    result = gradcli_process("eval", "--max-memory", "1G", "[0.5] * 10**9")
    assert result.returncode == 1
    assert result.stderr.startswith("<eval>:1:1: MemoryError: gradcli refuses to build a list of 1000000000 "
                                    "items (7.5 GB): the memory limit is 1 GB (see --max-memory)")
    tensor = gradcli_process("eval", "--max-memory", "1G", "import torch; torch.ones(10**9)")
    assert "RuntimeError: gradcli refuses to create a tensor of 1000000000 elements (3.7 GB)" in tensor.stderr


def test_the_repl_takes_max_memory():
    result = gradcli_process("repl", "--max-memory", "1G", "--no-hints", input="x = 'ab' * 10**9\n1 + 1\n")
    assert result.stdout == "2\n"
    assert "MemoryError: gradcli refuses to build a string of 2000000000 characters" in result.stderr


def test_what_no_check_foresees_stops_at_the_memory_ceiling():
    result = gradcli_process("eval", "--max-memory", "256M", "x = list(range(3 * 10**7))\nprint('no')")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("<eval>:1:5: MemoryError: the script's memory reached the limit of 256 MB "
                                    "(see --max-memory)")


def test_the_ceiling_holds_only_while_a_run_runs():
    import io
    import resource

    from gradcli.engine import budget
    from gradcli.lang.runtime import Session
    before = resource.getrlimit(resource.RLIMIT_DATA)
    budget_before = budget.max_memory()
    budget.set_max_memory(1 << 30)
    try:
        session = Session(stdout=io.StringIO(), stderr=io.StringIO())
        session.globals["limit"] = lambda: resource.getrlimit(resource.RLIMIT_DATA)[0]
        assert session.run_source("seen = limit()").ok
        assert session.globals["seen"] == session._memory_ceiling() != before[0]
    finally:
        budget.set_max_memory(budget_before)
    assert resource.getrlimit(resource.RLIMIT_DATA) == before


def test_a_memory_error_the_script_raises_is_its_own():
    result = gradcli_process("eval", "--max-memory", "1G", "raise MemoryError")
    assert result.stderr.splitlines()[0] == "<eval>:1:1: MemoryError"
