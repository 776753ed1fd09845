"""Run the conformance corpus with gradcli; fail unless every failing case is excused.

    python .ci/conformance.py RUNNER GRADCLI_CMD PYTHON

A failing case is excused only when .ci/unreproducible_cases.txt lists it and either PyTorch
itself (PYTHON, with torch installed) fails the same case through the same runner here, or this
CPU runs other vector kernels than the AVX512 ones gradcli reproduces (where PyTorch's last bits
are its CPU's, not gradcli's reference: the same rule as the test suite's bit-for-bit oracle
tests, tests/engine/cpu_kernels.py).  Prints the runner's report, then what was excused and why.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

FAIL = re.compile(r"^FAIL (\S+)\.ag:")


def failing(runner: str, cmd: str, *extra: str) -> tuple[list[str], str]:
    """The failing cases (area/name) and the runner's whole report."""
    done = subprocess.run([sys.executable, runner, "--cmd", cmd, *extra], capture_output=True, text=True)
    report = done.stdout + done.stderr
    names = []
    for line in report.splitlines():
        match = FAIL.match(line)
        if match:
            names.append("/".join(Path(match.group(1)).parts[-2:]))
    return names, report


def listed() -> set[str]:
    text = (Path(__file__).parent / "unreproducible_cases.txt").read_text(encoding="utf-8")
    return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}


def cpu_capability(python: str) -> str:
    """What torch's kernels run as on this CPU (AVX512, AVX2, DEFAULT)."""
    done = subprocess.run([python, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def main() -> int:
    runner, cmd, python = sys.argv[1:4]
    failures, report = failing(runner, cmd, "-j", "2")
    print(report, end="")
    allowed = listed()
    unexcused = [name for name in failures if name not in allowed]
    for name in failures:
        if name in unexcused:
            continue
        torch_fails, _ = failing(runner, python, "-k", Path(name).name)
        capability = cpu_capability(python)
        if name in torch_fails:
            print(f"excused: {name} (listed in .ci/unreproducible_cases.txt; PyTorch 2.13 here fails it too)")
        elif capability != "AVX512":
            print(f"excused: {name} (listed in .ci/unreproducible_cases.txt; PyTorch 2.13 passes it on this "
                  f"{capability} CPU, whose kernels round otherwise than the AVX512 ones gradcli reproduces)")
        else:
            print(f"not excused: {name} is listed, but PyTorch here passes it, so gradcli must too")
            unexcused.append(name)
    if unexcused:
        print(f"conformance: {len(unexcused)} failing case(s) not excused: {' '.join(unexcused)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
