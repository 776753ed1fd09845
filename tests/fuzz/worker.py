"""The long-lived child that runs fuzzed programs, one fresh gradcli Session per program.

Started by ``harness.Worker`` as ``python worker.py LIMITS_JSON``.  It reads one JSON request a
line on stdin and answers one JSON line on the descriptor the harness reads (its original
stdout); file descriptors 1 and 2 are sent to a log file, so anything that bypasses the Session's
streams (a traceback printed by the interpreter, faulthandler's dump on a segfault) is caught
and charged to the program that printed it.

Requests:  {"kind": "run", "text": ...}      a script, as ``gradcli run prog.ag`` runs it
           {"kind": "repl", "lines": [...]}  lines typed into one REPL, then ``1+1``
           {"kind": "crash"} / {"kind": "hang"}  a segfault / no answer, on purpose (the harness's
                                                  own tests)
"""

from __future__ import annotations

import faulthandler
import gc
import io
import json
import os
import resource
import sys
import time
import traceback
from typing import Any

FILENAME = "prog.ag"
_KEEP = 4000  # characters of each stream sent back (enough for any report's first lines)


def _limit_memory(limits: dict) -> None:
    address_space = limits.get("address_space")
    if address_space:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))


def _session_options(limits: dict, session_class: type) -> dict:
    options = {"timeout": limits["timeout"], "hints": True}
    import inspect
    if "max_memory" in inspect.signature(session_class).parameters and limits.get("max_memory"):
        options["max_memory"] = limits["max_memory"]   # (the limits helper's budget, once merged)
    return options


def _apply_engine_limits(engine: object, limits: dict) -> None:
    engine.set_max_elements(limits["max_elements"])  # type: ignore[attr-defined]
    set_max_memory = getattr(engine, "set_max_memory", None)
    if set_max_memory is not None and limits.get("max_memory"):
        set_max_memory(limits["max_memory"])


_INTERNAL: list[str] = []   # where each internal error of the current program was raised


def _note_internal_errors() -> None:
    """Make each internal error also say where in gradcli it came from (the innermost gradcli frame),
    which tells whose part it is, without --debug's traceback on every report."""
    from gradcli.lang.diagnostics import Reporter
    original = Reporter.internal_error

    def internal_error(self: Reporter, exc: BaseException, traceback_text: str | None) -> None:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f"{os.sep}gradcli{os.sep}" in f.filename]
        if frames:
            path = frames[-1].filename.rsplit(f"{os.sep}gradcli{os.sep}", 1)[1]
            _INTERNAL.append(f"gradcli/{path}:{frames[-1].name}")
        original(self, exc, traceback_text)

    Reporter.internal_error = internal_error  # type: ignore[method-assign]


class Runner:
    def __init__(self, limits: dict, log_path: str) -> None:
        from gradcli.engine import api
        from gradcli.lang.runtime import Session
        self.api = api
        self.Session = Session
        self.limits = limits
        self.log_path = log_path
        self.log_seen = 0
        self.options = _session_options(limits, Session)
        _note_internal_errors()

    def _new_log_text(self) -> str:
        sys.stdout.flush()
        size = os.path.getsize(self.log_path)
        if size == self.log_seen:
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            log.seek(self.log_seen)
            text = log.read(_KEEP)
        self.log_seen = size
        return text

    def run(self, text: str) -> dict:
        self.api.reset_global_state(seed=0)
        out, err = io.StringIO(), io.StringIO()
        escaped = None
        exit_code = None
        session = None
        start, cpu = time.perf_counter(), time.process_time()
        try:
            session = self.Session(stdout=out, stderr=err, **self.options)
            _apply_engine_limits(session.engine, self.limits)
            exit_code = session.run_source(text, FILENAME).exit_code
        except BaseException:  # noqa: B036 - what escapes the Session is exactly what is looked for
            escaped = traceback.format_exc()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        del session
        return {"exit_code": exit_code, "stdout": out.getvalue()[-_KEEP:], "stderr": err.getvalue()[:_KEEP],
                "escaped": escaped, "elapsed": elapsed, "cpu": cpu}

    def repl(self, lines: list[str]) -> dict:
        from gradcli.repl.core import Console
        self.api.reset_global_state(seed=0)
        out, err = io.StringIO(), io.StringIO()
        escaped = None
        answer = None
        longest = (0.0, 0.0)   # (wall, cpu) of the longest entry: each entry has its own time limit
        console = None
        try:
            console = Console(stdout=out, stderr=err, timeout=self.limits["timeout"],
                              max_elements=self.limits["max_elements"], seed=0)
            _apply_engine_limits(console.session.engine, self.limits)
            # timed per entry, not per line: a line after a block runs the block, then itself
            timings: list[tuple[float, float]] = []
            run_entry = console.run_entry

            def timed_entry(*args: Any, **kwargs: Any) -> Any:
                start, cpu = time.perf_counter(), time.process_time()
                try:
                    return run_entry(*args, **kwargs)
                finally:
                    timings.append((time.perf_counter() - start, time.process_time() - cpu))
            console.run_entry = timed_entry
            for line in lines:
                console.push(line)
                if console.finished:
                    break
            longest = max(timings, default=longest)
            console.flush()
            console.buffer.clear()
            mark = len(out.getvalue())
            console.finished = False
            console.push("1+1")
            answer = out.getvalue()[mark:]
        except BaseException:  # noqa: B036
            escaped = traceback.format_exc()
        finally:
            # the REPL's provenance watcher is global: a REPL ends with its process, a job does not
            if console is not None and console.provenance is not None:
                console.provenance.stop()
        return {"exit_code": 0, "stdout": out.getvalue()[-_KEEP:], "stderr": err.getvalue()[:_KEEP],
                "escaped": escaped, "elapsed": longest[0], "cpu": longest[1], "answer": answer}


def main() -> None:
    limits = json.loads(sys.argv[1])
    log_path = sys.argv[2]
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    requests = io.TextIOWrapper(os.fdopen(0, "rb", buffering=0), encoding="utf-8")
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", buffering=1, closefd=False)
    faulthandler.enable(file=sys.stderr)
    _limit_memory(limits)
    runner = Runner(limits, log_path)
    runner.run("1")  # load everything before the first timed program
    runner._new_log_text()
    reply.write(json.dumps({"ready": True}) + "\n")
    count = 0
    for line in requests:
        request = json.loads(line)
        kind = request["kind"]
        if kind == "crash":
            import ctypes
            ctypes.string_at(0)   # a segfault, on purpose
        if kind == "hang":
            time.sleep(3600)      # no answer, on purpose
        result = runner.run(request["text"]) if kind == "run" else runner.repl(request["lines"])
        result["raw"] = runner._new_log_text()
        result["internal_at"] = list(_INTERNAL)
        _INTERNAL.clear()
        count += 1
        if count % 200 == 0:
            gc.collect()  # (the engine spaces full collections out: old graphs would pile up)
        result["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        reply.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
