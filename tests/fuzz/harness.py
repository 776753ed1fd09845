"""Run fuzzed programs in long-lived worker processes and check the property on each.

The property (language.md §7-§8, issue 14): a program ends with exit status 0 or 1; an error is
a located report (``FILE:LINE:COL: Type: message``, or the syntax-error form, which is the same);
no Python traceback, no "internal error", no output that bypasses the Session's streams, no
signal, no hang; time within ``--timeout`` + 1 s and memory within the budget + 100 MB.  In the
REPL, after any entries, ``1+1`` still answers ``2``.

``Worker`` is one child (worker.py) that runs many programs, so that a crash names the program
and a program costs a few ms; ``run_campaign`` spreads programs over several workers, restarts a
worker that died, hung or grew past the memory bound, and returns the ``Finding``s.

From the command line (what a failing test prints):
    python tests/fuzz/harness.py --seed S --count N [--jobs J]   # a campaign
    python tests/fuzz/harness.py --seed S --show INDEX           # one program's text
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# The limits every program runs under (the CLI's --timeout, --max-elements, --max-memory).
TIMEOUT = 1.0
MAX_ELEMENTS = 2_000_000
MAX_MEMORY = 256 * 2**20
ADDRESS_SPACE = 4 * 2**30          # a hard stop under the measured bound (RLIMIT_AS of the worker)
GRACE = 10.0                       # past timeout + GRACE without an answer: a hang
SLOW = TIMEOUT + 1.0               # the acceptance bound on time
MEMORY_SLACK = 100 * 2**20         # the acceptance bound on memory: budget + 100 MB

LOCATED = re.compile(r"^(?:prog\.ag|<stdin>):\d+:\d+: [A-Za-z_][\w.]*(?::|$)")
UNLOCATED = re.compile(r"^(?:prog\.ag|<stdin>): [A-Za-z_]\w*")
# What only an object outside the language prints: gradcli's own classes, Python's descriptors.
LEAK = re.compile(r"[^\n]*(\bgradcli\.(lang|engine|repl|views)\.|<property object|<member '|<slot wrapper"
                  r"|<method-wrapper|<getset_descriptor)[^\n]*")


@dataclass
class Finding:
    kind: str        # crash, hang, escaped, exit-status, internal-error, traceback, raw-output, unlocated,
    #                  slow, memory, repl-dead, internal-name
    detail: str      # the line that shows it
    program: str     # the program's text (for the REPL: its lines joined)
    origin: str      # which generator made it, and its seed and index
    known: str | None = None   # the known-findings entry it matches (None: a new failure)

    @property
    def key(self) -> str:
        """The failure's class: its kind and its message with numbers and quoted text blanked."""
        text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", self.detail)
        text = re.sub(r"\d+(\.\d+)?", "N", text)
        return f"{self.kind}: {text[:160]}"


@dataclass
class Job:
    index: int
    origin: str
    request: dict
    text: str


# ---------------------------------------------------------------- the property
def check(job: Job, result: dict, limits: dict) -> list[Finding]:
    """The findings of one finished program (none: it kept the property)."""
    found: list[Finding] = []

    def add(kind: str, detail: str) -> None:
        found.append(Finding(kind, detail.strip()[:400], job.text, job.origin))

    stderr = result.get("stderr") or ""
    lines = stderr.splitlines()
    if result.get("escaped"):
        add("escaped", result["escaped"].strip().splitlines()[-1])
    internal = next((line for line in lines if "internal error" in line), None)
    if internal:
        where = (result.get("internal_at") or ["?"])[0]
        add("internal-error", internal.split("internal error:", 1)[-1].split(" (this is a bug")[0] + f" @ {where}")
    if "Traceback (most recent call last)" in stderr:
        add("traceback", next((line for line in reversed(lines) if line and not line.startswith(" ")), ""))
    raw = (result.get("raw") or "").strip()
    if raw:
        add("raw-output", raw.splitlines()[-1] if raw.startswith("Traceback") else raw.splitlines()[0])
    # a name of gradcli's own modules in what the script sees: an internal object reached it
    leak = LEAK.search((result.get("stdout") or "") + "\n" + stderr)
    if leak and not internal:
        add("internal-name", leak.group(0))
    exit_code = result.get("exit_code")
    if exit_code not in (0, 1) and not internal and not result.get("escaped"):
        add("exit-status", f"exit status {exit_code}")
    if job.request["kind"] == "run" and exit_code == 1 and not internal:
        if not any(LOCATED.match(line) and "Warning:" not in line.split(" ", 2)[1] for line in lines):
            add("unlocated", lines[0] if lines else "(no report at all)")
    for line in lines:
        if UNLOCATED.match(line):
            add("unlocated", line)
            break
    # time: the wall clock, unless the machine was busy with others (then the CPU time decides)
    bound = limits["timeout"] + 1.0
    if result.get("elapsed", 0) > bound and result.get("cpu", bound + 1) > bound:
        add("slow", f"{result['elapsed']:.1f} s with --timeout {limits['timeout']:g}")
    if job.request["kind"] == "repl" and result.get("answer") != "2\n" and not result.get("escaped"):
        add("repl-dead", f"1+1 answered {result.get('answer')!r}")
    return found


# ---------------------------------------------------------------- one worker
class Worker:
    """One worker.py child; ``run`` returns its result dict, or a Finding for a crash or hang."""

    def __init__(self, limits: dict) -> None:
        self.limits = limits
        self.log = tempfile.NamedTemporaryFile(prefix="gradcli-fuzz-", suffix=".log", delete=False)
        self.log.close()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]),
                   OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "worker.py"), json.dumps(limits), self.log.name],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
        self.buffer = b""
        self.ended = False
        ready = self._read_line(60.0)
        if ready is None or not json.loads(ready).get("ready"):
            raise RuntimeError(f"the fuzz worker did not start: {self._log_tail()}")
        self.baseline_kb = 0
        self.baseline_kb = self.maxrss_kb()

    def maxrss_kb(self) -> int:
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return self.baseline_kb

    def _read_line(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        out = self.process.stdout
        assert out is not None
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                return None
            chunk = os.read(out.fileno(), 1 << 16)
            if not chunk:
                self.ended = True   # the child closed its end: it is dying or dead
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def _log_tail(self) -> str:
        try:
            return Path(self.log.name).read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def run(self, job: Job, patience: float = 1.0) -> dict | Finding:
        try:
            assert self.process.stdin is not None
            self.process.stdin.write((json.dumps(job.request) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        wait = (self.limits["timeout"] + self.limits.get("grace", GRACE)) * patience
        line = self._read_line(wait)
        if line is not None:
            return json.loads(line)
        if not self.ended and self.process.poll() is None:
            self.close()
            return Finding("hang", f"no answer {wait:g} s after it started",
                           job.text, job.origin)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        code = self.process.returncode
        tail = self._log_tail()
        fatal = next((l for l in tail.splitlines() if "Fatal Python error" in l or "Segmentation" in l), "")
        what = f"signal {-code}" if code < 0 else f"exit status {code}"
        return Finding("crash", f"the worker died ({what}) {fatal}".strip(), job.text, job.origin)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


def default_limits() -> dict:
    return {"timeout": TIMEOUT, "max_elements": MAX_ELEMENTS, "max_memory": MAX_MEMORY,
            "address_space": ADDRESS_SPACE}


# ---------------------------------------------------------------- many workers
@dataclass
class Campaign:
    findings: list[Finding] = field(default_factory=list)
    programs: int = 0
    restarts: int = 0
    seconds: float = 0.0


def run_campaign(jobs: Iterable[Job], workers: int = 2, limits: dict | None = None,
                 on_finding: Callable[[Finding], None] | None = None) -> Campaign:
    """Run every job on ``workers`` worker processes; the campaign's findings."""
    limits = limits or default_limits()
    campaign = Campaign()
    lock = threading.Lock()
    source = iter(jobs)
    start = time.monotonic()
    memory_bound_kb = (limits.get("max_memory") or 0) // 1024 + MEMORY_SLACK // 1024

    def next_job() -> Job | None:
        with lock:
            return next(source, None)

    def record(found: list[Finding]) -> None:
        with lock:
            for finding in found:
                campaign.findings.append(finding)
                if on_finding is not None:
                    on_finding(finding)

    errors: list[BaseException] = []

    def serve() -> None:
        try:
            work()
        except BaseException as error:  # noqa: B036 - re-raised in the caller's thread
            errors.append(error)

    def work() -> None:
        worker = Worker(limits)
        try:
            while (job := next_job()) is not None:
                outcome = worker.run(job)
                with lock:
                    campaign.programs += 1
                if isinstance(outcome, Finding):
                    worker.close()
                    worker = Worker(limits)
                    with lock:
                        campaign.restarts += 1
                    if outcome.kind == "hang":
                        # again, alone in a fresh worker and with more patience: on a machine busy
                        # with other work a slow answer is not yet a hang
                        outcome = worker.run(job, patience=4.0)
                        if isinstance(outcome, Finding):
                            worker.close()
                            worker = Worker(limits)
                    if isinstance(outcome, Finding):
                        record([outcome])
                        continue
                found = check(job, outcome, limits)
                grown = worker.maxrss_kb() - worker.baseline_kb
                if grown > memory_bound_kb:
                    found.append(Finding("memory", f"peak memory grew by {grown // 1024} MB", job.text, job.origin))
                record(found)
                if grown > memory_bound_kb:
                    worker.close()  # (its high-water mark would charge every later program)
                    worker = Worker(limits)
                    with lock:
                        campaign.restarts += 1
        finally:
            worker.close()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    campaign.seconds = time.monotonic() - start
    return campaign


# ---------------------------------------------------------------- reproduction and reduction
def write_failures(findings: list[Finding], directory: Path) -> list[Path]:
    """Each finding's program as a file, with what it showed and how to run it again."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, finding in enumerate(findings):
        path = directory / f"finding-{number:03d}.ag"
        path.write_text(finding.program, encoding="utf-8")
        command = (f"gradcli run --timeout {TIMEOUT:g} --max-elements {MAX_ELEMENTS} {path}"
                   if not finding.origin.startswith("repl") else f"gradcli repl --timeout {TIMEOUT:g} < {path}")
        path.with_suffix(".txt").write_text(
            f"{finding.key}\n{finding.detail}\norigin: {finding.origin}\nknown: {finding.known}\n"
            f"reproduce: {command}\n", encoding="utf-8")
        paths.append(path)
    return paths


def minimize(finding: Finding, worker: Worker, job_of: Callable[[str], Job], limits: dict,
             budget: int = 300) -> str:
    """The finding's program with as many lines removed as keep the same failure class."""
    lines = finding.program.split("\n")

    def same(candidate: list[str]) -> bool:
        job = job_of("\n".join(candidate))
        outcome = worker.run(job)
        if isinstance(outcome, Finding):
            return outcome.key == finding.key
        return any(f.key == finding.key for f in check(job, outcome, limits))

    tries = 0
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and tries < budget:
        index = 0
        while index < len(lines) and tries < budget:
            candidate = lines[:index] + lines[index + chunk:]
            tries += 1
            if candidate and same(candidate):
                lines = candidate
            else:
                index += chunk
        chunk //= 2
    return "\n".join(lines)


def _say_if_new(finding: Finding) -> None:
    """A finding no known entry covers, at once (a long campaign may be stopped before its end)."""
    from known_findings import classify
    if classify(finding) is None:
        print(f"NEW {finding.key}\n    {finding.detail}\n    {finding.origin}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    import argparse

    from programs import Programs
    parser = argparse.ArgumentParser(description="Run the gradcli fuzzer outside pytest.")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--show", type=int, help="print one program's text and exit")
    parser.add_argument("--out", type=Path, help="write each finding's program here")
    parser.add_argument("--minimize", action="store_true", help="reduce one program per failure class")
    args = parser.parse_args(argv)
    programs = Programs(args.seed)
    if args.show is not None:
        print(programs.job(args.show).text)
        return 0
    from known_findings import classify
    campaign = Campaign()
    for chunk in range(args.start, args.start + args.count, 5000):   # a progress line per 5 000
        part = run_campaign((programs.job(k) for k in range(chunk, min(chunk + 5000, args.start + args.count))),
                            args.jobs, on_finding=_say_if_new)
        campaign.findings += part.findings
        campaign.programs += part.programs
        campaign.restarts += part.restarts
        campaign.seconds += part.seconds
        new = sum(1 for f in campaign.findings if classify(f) is None)
        print(f"... {campaign.programs} programs, {campaign.seconds:.0f} s, {len(campaign.findings)} findings, "
              f"{new} not known", file=sys.stderr, flush=True)
    classes: dict[str, list[Finding]] = {}
    for finding in campaign.findings:
        finding.known = classify(finding)
        classes.setdefault(finding.key, []).append(finding)
    print(f"{campaign.programs} programs in {campaign.seconds:.1f} s, {campaign.restarts} restarts, "
          f"{len(campaign.findings)} findings in {len(classes)} classes")
    worker = Worker(default_limits()) if args.minimize else None
    for key, group in sorted(classes.items(), key=lambda item: -len(item[1])):
        first = group[0]
        print(f"\n[{len(group)}] {key}\n    {first.detail}\n    known: {first.known}\n    origin: {first.origin}")
        if worker is not None and first.origin.split(":")[0] != "repl":
            small = minimize(first, worker, lambda text: Job(-1, first.origin, {"kind": "run", "text": text}, text),
                             default_limits())
            print("    " + small.replace("\n", "\n    "))
    if worker is not None:
        worker.close()
    if args.out:
        write_failures(campaign.findings, args.out)
    return 1 if any(f.known is None for f in campaign.findings) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main(sys.argv[1:]))
