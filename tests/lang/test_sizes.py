"""The language checks sizes before Python builds something huge (gradcli.lang.sizes)."""

from __future__ import annotations

from typing import Iterator

import pytest

from gradcli.engine import budget


@pytest.fixture(autouse=True)
def ten_gigabytes() -> Iterator[None]:
    before = budget.max_memory()
    budget.set_max_memory(10 << 30)
    yield
    budget.set_max_memory(before)


@pytest.mark.parametrize("code, message", [
    ("[0] * 10**11", "gradcli refuses to build a list of 100000000000 items (745.1 GB): the memory limit "
                     "is 10 GB (see --max-memory)"),
    ("10**11 * [0, 1]", "gradcli refuses to build a list of 200000000000 items"),
    ("'a' * 10**11", "gradcli refuses to build a string of 100000000000 characters (93.1 GB)"),
    ("'é' * 10**10", "gradcli refuses to build a string of 10000000000 characters (37.3 GB)"),
    ("(1, 2) * 10**10", "gradcli refuses to build a tuple of 20000000000 items"),
    ("x = [1]\nx *= 10**11", "gradcli refuses to build a list of 100000000000 items"),
    ("10**10**10", "gradcli refuses to compute an integer of about 30000000001 bits: the limit is 4194304 bits"),
    ("2 ** 10**8", "gradcli refuses to compute an integer of about 100000001 bits"),
    ("x = 3\nx **= 10**9", "gradcli refuses to compute an integer of about 1000000001 bits"),
    ("1 << 10**10", "gradcli refuses to compute an integer of about 10000000001 bits"),
    ("x = 1\nx <<= 10**10", "gradcli refuses to compute an integer of about 10000000001 bits"),
    ("x = 2**4000000\nx * x", "gradcli refuses to compute an integer of about 8000001 bits"),
    ("f'{1:999999999999}'", "gradcli refuses to build a formatted text of 999999999999 characters"),
    ("w = 10**12\nf'{1:{w}}'", "gradcli refuses to build a formatted text of 1000000000000 characters"),
    ("f'{1.5:.99999999999f}'", "gradcli refuses to build a formatted text of 99999999999 characters"),
    ("'{:99999999999}'.format(1)", "gradcli refuses to build a formatted text of 99999999999 characters"),
])
def test_huge_results_are_refused_at_once(run, code, message) -> None:
    result = run(code)
    assert result.code == 1
    assert result.headline.startswith("MemoryError: " + message)
    assert result.err.startswith("test.ag:")


def test_a_refusal_is_located_and_catchable(run) -> None:
    result = run("try:\n    s = 'ab' * 10**12\nexcept MemoryError as e:\n    print('caught', type(e).__name__)\n")
    assert (result.code, result.out) == (0, "caught MemoryError\n")
    located = run("x = 1\ny = [x] * 10**12\n")
    assert located.err.splitlines()[0].startswith("test.ag:2:5: MemoryError: gradcli refuses")


def test_pythons_own_errors_stay_pythons(run) -> None:
    assert run("[0] * 2**63").headline == "OverflowError: cannot fit 'int' into an index-sized integer"
    assert run("f'{1:99999999999999999999}'").headline == "ValueError: Too many decimal digits in format string"


def test_the_checks_hold_in_a_hot_loop_too(run) -> None:
    # past statements.HOT_ITERATIONS the loop runs as rebuilt Python code (compiler.fusion)
    code = ("n = 0\nfor i in range(200):\n    n = n + len('ab' * 3) + (i * 2) ** 2 + (1 << 3)\n"
            "    s = [i] * 2\n    s *= 2\n    t = f'{i:>3}'\n"
            "    if i == 199:\n        big = 'x' * 10**12\n")
    result = run(code)
    assert result.headline.startswith("MemoryError: gradcli refuses to build a string of 1000000000000")
    assert result.err.splitlines()[0].startswith("test.ag:8:15:")


def test_ordinary_values_are_unchanged(run) -> None:
    code = ("print([1, 2] * 2, 'ab' * 3, (0,) * 2, 3 * 4, 2 ** 100, 2 ** -1, 2.0 ** 3, 1 << 70, -3 ** 65)\n"
            "x = [0]\nx *= 3\ny = 5\ny **= 2\nz = 1\nz <<= 3\nprint(x, y, z, f'{3.14159:.2f}|{7:>5}', "
            "'{:>4}'.format(3), True * 'a', [1] * True)\n")
    result = run(code)
    assert result.err == ""
    assert result.out == (f"[1, 2, 1, 2] ababab (0, 0) 12 {2 ** 100} 0.5 8.0 {1 << 70} {-3 ** 65}\n"
                          "[0, 0, 0] 25 8 3.14|    7    3 a [1]\n")


def test_no_budget_still_bounds_ints(run) -> None:
    budget.set_max_memory(None)
    assert run("10**10**10").headline.startswith("MemoryError: gradcli refuses to compute an integer")
