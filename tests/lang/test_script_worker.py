"""Runs in a worker thread: the time limit and Ctrl-C end the wait at once, even while the
script is inside a long call that holds no lock (as NumPy's long calls do); an abandoned run
cannot change the session's variables afterwards (gradcli.lang.script_worker)."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from gradcli.lang.runtime import INTERRUPTED, SCRIPT_ERROR
from gradcli.lang.script_worker import Stopped, Worker


def _fresh(**options):
    """A fake-engine Session whose scripts can call wait(seconds): a C call that lets go of the GIL."""
    import io

    from fake_engine import make_engine

    from gradcli.lang import Session
    session = Session(engine=make_engine(), stdout=io.StringIO(), stderr=io.StringIO(), **options)
    session.globals["wait"] = time.sleep
    return session


def _ctrl_c_in(seconds: float) -> threading.Timer:
    main = threading.main_thread().ident
    timer = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer


def test_the_time_limit_stops_a_long_call_where_it_is() -> None:
    session = _fresh(timeout=0.2)
    outcome = session.run_source("x = 1\nwait(3)\nx = 2\n", "t.ag")
    worker = session._abandoned[0]
    assert outcome is SCRIPT_ERROR
    assert not worker.finished     # still in its 3-second call: the limit did not wait for it
    err = session._abandoned[1].stream.getvalue()
    assert err.splitlines() == ["t.ag:2:1: TimeoutError: the script ran longer than the time limit of 0.2 s "
                                "(--timeout)", "    wait(3)", "    ^^^^^^^"]
    assert session.globals["x"] == 1


def test_ctrl_c_stops_a_long_call_and_the_variables_stay_as_they_were() -> None:
    session = _fresh()
    session.run_source("k = 1\n", "t.ag")
    timer = _ctrl_c_in(0.3)
    outcome = session.run_source("k = 2\nwait(1.5)\nk = 3\n", "t.ag")
    timer.join()
    assert outcome is INTERRUPTED
    reporter = session._abandoned[1]
    assert reporter.stream.getvalue().splitlines() == ["t.ag:2:1: KeyboardInterrupt", "    wait(1.5)"]
    # the next run waits for the abandoned one to end; `k = 3` never ran
    assert session.run_source("print(k)\n", "t.ag").ok
    assert session.output.stream.getvalue() == "2\n"
    assert session.reporter is reporter


def test_a_worker_gives_its_result_or_its_error() -> None:
    assert Worker(lambda: 42).run(None) == 42
    with pytest.raises(ZeroDivisionError):
        Worker(lambda: 1 / 0).run(time.monotonic() + 60)


def test_a_worker_past_its_deadline_says_where_it_was() -> None:
    release = threading.Event()
    worker = Worker(lambda: release.wait(10))
    with pytest.raises(Stopped) as stop:
        worker.run(time.monotonic() + 0.05)
    assert stop.value.reason == "timeout" and stop.value.frame is not None
    release.set()
    assert worker.finish(10)


def test_numpys_error_state_holds_in_the_worker() -> None:
    import numpy as np
    with np.errstate(all="ignore"):
        assert Worker(lambda: np.geterr()["divide"]).run(None) == "ignore"


def test_in_the_repl_ctrl_c_returns_to_the_prompt_with_the_variables() -> None:
    import io

    from gradcli.repl.core import Console
    out, err = io.StringIO(), io.StringIO()
    console = Console(stdout=out, stderr=err)
    console.run_entry("x = torch.ones(3)")
    console.session.globals["wait"] = time.sleep
    timer = _ctrl_c_in(0.3)
    outcome = console.run_entry("y = x * 2\nwait(1.5)\nx = None")
    timer.join()
    assert outcome is INTERRUPTED
    assert "KeyboardInterrupt" in err.getvalue()
    console.run_entry("print(x, y)")
    assert out.getvalue().endswith("tensor([1., 1., 1.]) tensor([2., 2., 2.])\n")
