from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_engine import make_engine  # noqa: E402

from gradcli.lang import Session  # noqa: E402


class Result:
    def __init__(self, out: str, err: str, outcome) -> None:
        self.out = out
        self.err = err
        self.outcome = outcome
        self.code = outcome.exit_code

    @property
    def headline(self) -> str:
        """The first diagnostic line without its location: 'TypeError: ...'."""
        first = self.err.splitlines()[0]
        return first.split(": ", 1)[1] if first.count(":") >= 3 else first


def run_script(text: str, echo: str = "none", session: Session | None = None, **options) -> Result:
    out, err = io.StringIO(), io.StringIO()
    if session is None:
        session = Session(engine=make_engine(), stdout=out, stderr=err, **options)
    else:
        out, err = session.output.stream, session.reporter.stream
    outcome = session.run_source(text, "test.ag", echo=echo)
    return Result(out.getvalue(), err.getvalue(), outcome)


@pytest.fixture
def run():
    return run_script
