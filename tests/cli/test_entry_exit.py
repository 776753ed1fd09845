"""The ``gradcli`` command ends without the interpreter's teardown (cli.entry): its output and
exit status must be exactly those of a normal exit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradcli.cli import _exit_status


def command(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=stdin, capture_output=True, text=True,
                          timeout=60, env={"NO_COLOR": "1", "PATH": ""})


def test_a_run_flushes_everything_it_printed() -> None:
    done = command("eval", "for i in range(20000): print(i)")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [str(i) for i in range(20000)]


def test_an_error_keeps_its_status_and_message() -> None:
    done = command("eval", "1 / 0")
    assert done.returncode == 1
    assert "ZeroDivisionError: division by zero" in done.stderr


def test_a_reader_that_goes_away_is_a_quiet_failure() -> None:
    producer = subprocess.Popen([sys.executable, "-m", "gradcli", "eval", "for i in range(10**6): print(i)"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"NO_COLOR": "1", "PATH": ""})
    assert producer.stdout is not None
    producer.stdout.readline()
    producer.stdout.close()
    _, err = producer.communicate(timeout=60)
    assert producer.returncode == 1
    assert b"Traceback" not in err and b"Exception ignored" not in err


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (3, 3), (256 + 2, 2), ("bye", 1)])
def test_exit_codes_are_pythons(code: object, status: int) -> None:
    assert _exit_status(code) == status
