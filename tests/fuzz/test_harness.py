"""The fuzzer's own machinery: the property check, the worker's crash and hang handling, the
generators' determinism and reach, the mutations, the known-findings list."""

from __future__ import annotations

import random
import re

import pytest

from harness import Job, Worker, check, default_limits, minimize
from known_findings import KNOWN, OWNERS, classify
from mutations import LINE_MUTATIONS, corpus, mutate, mutate_token, mutate_tree, nest_deep, tower
from programs import Programs

LIMITS = default_limits()


def _job(text: str, kind: str = "run") -> Job:
    request = {"kind": kind, "text": text} if kind == "run" else {"kind": kind, "lines": text.split("\n")}
    return Job(0, "test", request, text)


def _result(stderr: str = "", exit_code: int = 1, **more: object) -> dict:
    return {"exit_code": exit_code, "stderr": stderr, "stdout": "", "escaped": None, "elapsed": 0.01,
            "raw": "", **more}


REPORT = "prog.ag:3:5: RuntimeError: shape '[2]' is invalid for input of size 3\n    x.view(2)\n    ^^^^^^^^^\n"


# ---------------------------------------------------------------- the property
def test_a_located_report_or_a_clean_run_keeps_the_property() -> None:
    assert check(_job("x"), _result(REPORT), LIMITS) == []
    assert check(_job("x"), _result("", exit_code=0), LIMITS) == []
    syntax = "prog.ag:1:3: SyntaxError: '(' was never closed\n    x=(1,\n      ^\n"
    assert check(_job("x"), _result(syntax), LIMITS) == []


@pytest.mark.parametrize(("result", "kind"), [
    (_result("gradcli: internal error: OverflowError: x (this is a bug in gradcli)", 70), "internal-error"),
    (_result("Traceback (most recent call last):\n  File \"a\", line 1\nKeyError: 1\n"), "traceback"),
    (_result("prog.ag: RecursionError: maximum recursion depth exceeded during compilation"), "unlocated"),
    (_result("TypeError: bad operand type for unary ~: 'float'"), "unlocated"),
    (_result(""), "unlocated"),
    (_result("prog.ag:1:1: UserWarning: careful\n"), "unlocated"),   # a warning is not the error's report
    (_result(REPORT, exit_code=130), "exit-status"),
    (_result(REPORT, escaped="Traceback ...\nScriptTimeout"), "escaped"),
    (_result(REPORT, raw="Exception ignored in: <generator>\n"), "raw-output"),
    (_result(REPORT, elapsed=LIMITS["timeout"] + 1.5), "slow"),
    (_result("", exit_code=0, stdout="<class 'gradcli.lang.safety.SafeFormat'>\n"), "internal-name"),
    (_result("", exit_code=0, stdout="<property object at 0x7f36c690a2a0>\n"), "internal-name"),
])
def test_each_way_of_breaking_the_property_is_found(result: dict, kind: str) -> None:
    assert kind in {finding.kind for finding in check(_job("x"), result, LIMITS)}


def test_the_repl_must_still_answer() -> None:
    job = _job("x = 1", kind="repl")
    assert check(job, _result("", exit_code=0, answer="2\n"), LIMITS) == []
    assert [f.kind for f in check(job, _result("", exit_code=0, answer=""), LIMITS)] == ["repl-dead"]


def test_a_failure_class_ignores_numbers_and_quoted_text() -> None:
    a, b = (check(_job("x"), _result(f"gradcli: internal error: TypeError: '{t}' got {n} (this is a bug)", 70),
                  LIMITS)[0] for t, n in (("int", 3), ("str", 45)))
    assert a.key == b.key and "N" in a.key


# ---------------------------------------------------------------- the worker
@pytest.fixture(scope="module")
def worker() -> Worker:
    started = Worker(dict(LIMITS, grace=1.0))
    yield started
    started.close()


def test_the_worker_runs_programs_in_a_fresh_session_each(worker: Worker) -> None:
    first = worker.run(_job("import torch\nn = 5\ntorch.set_printoptions(precision=2)\nprint(torch.tensor(1/3))\n"))
    second = worker.run(_job("import torch\nprint(torch.tensor(1/3))\nprint(n)\n"))
    assert first["exit_code"] == 0 and first["stdout"] == "tensor(0.33)\n"
    assert second["stdout"] == "tensor(0.3333)\n"   # print options back to the defaults
    assert second["exit_code"] == 1 and "NameError: name 'n' is not defined" in second["stderr"]


def test_the_worker_stops_a_long_program_at_its_timeout(worker: Worker) -> None:
    result = worker.run(_job("while True:\n    pass\n"))
    assert result["exit_code"] == 1 and "TimeoutError" in result["stderr"]
    assert check(_job("while True:\n    pass\n"), result, LIMITS) == []


def test_the_repl_runs_entries_then_answers(worker: Worker) -> None:
    result = worker.run(_job("x = 2\nfor k in range(2):\n    x = x * 3\n\nx\nundefined\n", kind="repl"))
    assert result["answer"] == "2\n" and "18" in result["stdout"] and "NameError" in result["stderr"]


def test_a_crash_and_a_hang_name_the_program() -> None:
    limits = dict(LIMITS, grace=0.5, timeout=0.1)
    for kind, found in (("crash", "crash"), ("hang", "hang")):
        crashing = Worker(limits)
        try:
            outcome = crashing.run(Job(7, f"{kind}-origin", {"kind": kind}, "the program"))
        finally:
            crashing.close()
        assert outcome.kind == found and outcome.origin == f"{kind}-origin" and outcome.program == "the program"
        if kind == "crash":
            assert "signal 11" in outcome.detail


def test_a_program_that_grows_memory_past_the_bound_is_found() -> None:
    from harness import run_campaign
    text = "L = [0] * (2 * 10 ** 7)\nprint(len(L))\n"     # 160 MB of list, over a bound of 0 + 100 MB
    campaign = run_campaign([_job(text), _job("print(1)\n")], workers=1, limits=dict(LIMITS, max_memory=0))
    assert [(f.kind, f.program) for f in campaign.findings] == [("memory", text)]
    assert campaign.programs == 2 and campaign.restarts == 1


def test_minimize_keeps_the_failure_and_drops_the_rest(worker: Worker) -> None:
    text = "a = 1\nb = 2\nc = [1, 2]\nd = 4\nc.nosuch\ne = 5\n"
    finding = check(_job(text), worker.run(_job(text)), LIMITS)
    assert finding == []   # a clean AttributeError: nothing to reduce; so fake a failure class
    from harness import Finding
    fake = Finding("slow", "0.0 s with --timeout -10", text, "test")   # every run is "slow" under -10 s
    kept = minimize(fake, worker, lambda t: _job(t), dict(LIMITS, timeout=-10.0))
    assert kept.count("\n") < text.count("\n")


# ---------------------------------------------------------------- the generators
@pytest.fixture(scope="module")
def programs() -> Programs:
    return Programs(3)


def test_a_program_depends_only_on_its_seed_and_index(programs: Programs) -> None:
    again = Programs(3)
    assert [programs.job(k).text for k in (0, 5, 99)] == [again.job(k).text for k in (0, 5, 99)]
    assert programs.job(5).text != Programs(4).job(5).text


def test_generated_calls_reach_many_real_ops(programs: Programs) -> None:
    from gradcli.engine.dispatch.publish import OPS
    rng = random.Random(0)
    called = set()
    for _ in range(3000):
        called.update(re.findall(r"\b([a-z_][a-z0-9_]*)\(", programs.opcalls.call(rng, 0.2)))
    reached = {name for name in OPS if name in called or name + "_" in called}
    assert len(reached) > 0.6 * len([n for n in OPS if not n.startswith("_")])


def test_most_op_programs_parse(programs: Programs) -> None:
    from gradcli.lang.syntax import is_complete  # noqa: F401  (loads the parser)
    from gradcli.lang.runtime import _parse
    rng = random.Random(1)
    parsed = 0
    for _ in range(100):
        try:
            _parse(programs.ops_program(rng), 1)
            parsed += 1
        except Exception:
            pass
    assert parsed >= 95


def test_grammar_programs_cover_the_grammar(programs: Programs) -> None:
    rng = random.Random(2)
    text = "".join(programs.grammar.program(rng, 5) for _ in range(300))
    for word in ("if", "for", "while", "def", "lambda", "class", "try", "with", "import", "return", "[", "{"):
        assert re.search(rf"(^|\W){re.escape(word)}(\W|$)", text), word


# ---------------------------------------------------------------- the mutations
def test_the_corpus_holds_samples_golden_cases_and_workloads() -> None:
    names = [name for name, _ in corpus()]
    assert any(n.startswith("samples/") for n in names) and any(n.startswith("bench/") for n in names)
    assert sum(n.startswith("tests/golden/") for n in names) > 100


def test_every_mutation_changes_a_program_and_is_repeatable() -> None:
    text = "import torch\nx = torch.ones(2, 3) * 2\ny = (x + 1).sum()\nprint(y, x.shape[0] < 3)\n"
    for mutation in (*LINE_MUTATIONS, mutate_token, mutate_tree, nest_deep, mutate):
        changed = [mutation(text, random.Random(k)) for k in range(20)]
        assert any(c != text for c in changed), mutation.__name__
        assert changed == [mutation(text, random.Random(k)) for k in range(20)]


def test_towers_go_past_what_cpython_parses() -> None:
    rng = random.Random(0)
    assert all(len(tower("x", 1000, rng)) > 1000 for _ in range(10))


# ---------------------------------------------------------------- the known findings
def test_each_known_finding_names_an_owner_and_a_reproducer() -> None:
    for known in KNOWN:
        assert known.owner in OWNERS and known.example.strip() and re.compile(known.pattern)


def test_each_known_finding_still_happens() -> None:
    """When another helper's fix lands, its entry must leave known_findings.py (this says which)."""
    fixed = []
    worker = Worker(LIMITS)
    for known in (k for k in KNOWN if not k.timing):
        kind = "repl" if known.kind == "repl-dead" else "run"
        job = _job(known.example, kind)
        outcome = worker.run(job)
        found = [outcome] if not isinstance(outcome, dict) else check(job, outcome, LIMITS)
        if not any(classify(f) == classify_entry(known) for f in found):
            fixed.append(known)
        if not isinstance(outcome, dict):   # the worker is gone: start another
            worker.close()
            worker = Worker(LIMITS)
    worker.close()
    assert not fixed, "fixed now, remove from known_findings.KNOWN: " + "; ".join(k.pattern for k in fixed)


def classify_entry(known: object) -> str:
    return f"{known.owner}: {known.pattern}"


def test_the_worker_sees_what_the_cli_shows(worker: Worker, programs: Programs, tmp_path) -> None:
    """The in-process run is the CLI's run: same exit status, same first line of the report."""
    import os
    import subprocess
    import sys

    from harness import MAX_ELEMENTS, ROOT, TIMEOUT
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    compared = 0
    for index in range(40):
        job = programs.job(index)
        if job.request["kind"] != "run" or compared == 5:
            continue
        compared += 1
        path = tmp_path / "prog.ag"
        path.write_text(job.text, encoding="utf-8")
        cli = subprocess.run([sys.executable, "-m", "gradcli", "run", "--timeout", str(TIMEOUT),
                              "--max-elements", str(MAX_ELEMENTS), "prog.ag"],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        inside = worker.run(job)
        assert (cli.returncode, cli.stderr.split("\n")[0]) == (inside["exit_code"], inside["stderr"].split("\n")[0])
    assert compared == 5
