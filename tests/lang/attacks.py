"""Running sandbox-escape attempts: each through Session.run_source (what ``gradcli run`` calls), with
the real engine, in an empty working directory, and checked for a clean refusal.

A clean refusal is a located report (``test.ag:LINE:COL: Type: message``) of one of Python's or
PyTorch's error types, exit status 1, no traceback, no internal error, and nothing that escaped:
the working directory stays empty, the environment is unchanged, and a secret put in the
environment never shows in what the script printed.
"""

from __future__ import annotations

import io
import os
import re
import unicodedata

import pytest

from gradcli.lang import Session

SECRET = "gradcli-attack-canary-5d0f"
REFUSALS = frozenset({"AttributeError", "NameError", "TypeError", "ModuleNotFoundError", "ImportError",
                      "NotImplementedError", "SyntaxError", "ValueError", "PermissionError", "RuntimeError",
                      "KeyError", "IndexError", "UnboundLocalError", "IndentationError", "RecursionError"})
_LOCATED = re.compile(r"^test\.ag:(\d+):(\d+): (\w+): (.*)$")
# gradcli's own classes and modules: a report never names them
_INTERNAL = re.compile(r"SafeFormat|UserFunction|Namespace|OpaqueType|AttributeView|DTypeWord|GradWord|ScriptType|"
                       r"TypeTable|\bDType\b|\bFrame\b|gradcli\.(lang|engine|views)|Script\w*Error")


class Refusal:
    def __init__(self, out: str, err: str, status: str) -> None:
        self.out, self.err, self.status = out, err, status
        first = err.splitlines()[0] if err else ""
        found = _LOCATED.match(first)
        self.located = found is not None
        self.kind = found.group(3) if found else None
        self.headline = f"{found.group(3)}: {found.group(4)}" if found else first


def attempt(code: str) -> Refusal:
    out, err = io.StringIO(), io.StringIO()
    session = Session(stdout=out, stderr=err)
    outcome = session.run_source(code if code.endswith("\n") else code + "\n", "test.ag")
    return Refusal(out.getvalue(), err.getvalue(), outcome.status)


@pytest.fixture
def sandboxed(tmp_path, monkeypatch):
    """An empty working directory and a secret in the environment; afterwards both are checked."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRADCLI_ATTACK_SECRET", SECRET)
    before = _environment()
    yield tmp_path
    after = _environment()
    assert after == before, {key: (before.get(key), after.get(key)) for key in set(before) | set(after)
                             if before.get(key) != after.get(key)}
    assert list(tmp_path.iterdir()) == [], "a file was written"


_PATHS = re.compile(r"'(/[^'\s]+|[\w.-]+\.(?:pt|npy|bin|pkl|svg|txt|png))'")


def _environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTEST_CURRENT_TEST"}


def assert_refused(code: str, expected: str) -> None:
    """``code`` ends in a clean refusal whose ``Type: message`` starts with ``expected``; no file the
    code names (``'model.pt'``, ``'/tmp/x.svg'``) appeared."""
    named = [path for path in _PATHS.findall(code) if not os.path.exists(path)]
    result = attempt(code)
    assert not [path for path in named if os.path.exists(path)], "a file was written"
    assert result.status == "error", (result.status, result.out, result.err)
    assert result.located, result.err
    assert result.kind in REFUSALS, result.err
    # (NFKC-folded: Python folds identifiers, so a report may spell `ｅｖａｌ` either way)
    assert unicodedata.normalize("NFKC", result.headline).startswith(unicodedata.normalize("NFKC", expected)), \
        result.err
    assert "Traceback" not in result.err and "internal error" not in result.err.lower()
    assert not _INTERNAL.search(result.out + result.err), result.err
    assert SECRET not in result.out + result.err
    assert "root:x:0:0" not in result.out
