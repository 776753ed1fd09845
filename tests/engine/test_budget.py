"""--max-memory: sizes are checked from shapes and dtypes before anything is allocated.

Every refusal here asks for far more than the budget, so nothing is ever allocated; the budget is
set well above what the test process holds, so the resident-memory part of the check only counts
when a test means it to.
"""

from __future__ import annotations

import re
from typing import Iterator

import pytest

from gradcli.engine import api, budget
from gradcli.engine.errors import TorchMemoryError, TorchRuntimeError

GB = 1 << 30


class _Torch:
    def __getattr__(self, name: str):
        return api.TORCH[name]


torch = _Torch()
F = api.SUBMODULES["nn.functional"]


@pytest.fixture(autouse=True)
def ten_gigabytes(monkeypatch) -> Iterator[None]:
    # (a machine of 1 TB: past its memory PyTorch's own allocator error is given instead)
    monkeypatch.setattr(budget, "physical_memory", lambda: 1 << 40)
    before = budget.max_memory()
    budget.set_max_memory(10 * GB)
    yield
    budget.set_max_memory(before)


def refused(count: int) -> str:
    return re.escape(f"gradcli refuses to create a tensor of {count} elements (") + r".*" + re.escape(
        "the memory limit is 10 GB (see --max-memory)")


def expanded(n: int):
    return torch.ones(1).expand(n)


@pytest.mark.parametrize("make, count", [
    (lambda: torch.ones(10 ** 10), 10 ** 10),
    (lambda: torch.full((2, 10 ** 10), 2.0), 2 * 10 ** 10),
    (lambda: torch.randn(3 * 10 ** 9), 3 * 10 ** 9),
    (lambda: torch.zeros_like(expanded(10 ** 10)), 10 ** 10),
    (lambda: torch.full_like(expanded(10 ** 10), 3), 10 ** 10),
    (lambda: torch.rand_like(expanded(10 ** 10)), 10 ** 10),
    (lambda: torch.ones(5).new_zeros((10 ** 10,)), 10 ** 10),
    (lambda: torch.exp(expanded(2 * 10 ** 9)), 2 * 10 ** 9),
    (lambda: expanded(2 * 10 ** 9).contiguous(), 2 * 10 ** 9),
    (lambda: expanded(2 * 10 ** 9).double(), 2 * 10 ** 9),
    (lambda: torch.ones(10 ** 5, 1) + torch.ones(10 ** 5), 10 ** 10),
    (lambda: torch.ones(10 ** 5, 1) @ torch.ones(1, 10 ** 5), 10 ** 10),
    (lambda: torch.ones(10 ** 5, 1).mm(torch.ones(1, 10 ** 5)), 10 ** 10),
    (lambda: torch.outer(torch.ones(10 ** 5), torch.ones(10 ** 5)), 10 ** 10),
    (lambda: torch.ones(10).repeat(10 ** 9), 10 ** 10),
    (lambda: torch.cat([expanded(10 ** 6)] * 10 ** 4), 10 ** 10),
    (lambda: F["one_hot"](torch.tensor([10 ** 10])), 10 ** 10 + 1),
])
def test_too_large_is_refused_before_allocating(make, count) -> None:
    with pytest.raises(TorchRuntimeError, match=refused(count)):
        make()


def test_past_the_machine_or_int64_the_errors_are_pytorchs(monkeypatch) -> None:
    monkeypatch.setattr(budget, "physical_memory", lambda: 16 * GB)
    with pytest.raises(TorchRuntimeError, match=re.escape(
            "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried "
            "to allocate 40000000000000 bytes. Error code 12 (Cannot allocate memory)")):
        torch.empty(10 ** 13)
    with pytest.raises(TorchRuntimeError, match=re.escape(
            "Storage size calculation overflowed with sizes=[4611686018427387904]")):
        torch.randint(0, 5, (2 ** 62,))
    with pytest.raises(TorchRuntimeError, match=re.escape(
            "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]")):
        torch.ones(2 ** 40, 2 ** 40)
    with pytest.raises(TorchRuntimeError, match=re.escape("invalid size, possible overflow?")):
        torch.arange(1e300)


def test_a_huge_count_is_written_short() -> None:
    assert budget.count_text(10 ** 300) == "1e+300" and budget.count_text(12345) == "12345"


def test_tolist_of_an_expanded_view_is_a_memory_error() -> None:
    with pytest.raises(TorchMemoryError, match="gradcli refuses to build a list of 1000000000 numbers"):
        expanded(10 ** 9).tolist()
    assert expanded(3).tolist() == [1.0, 1.0, 1.0]


def test_the_size_counts_the_dtype() -> None:
    budget.check_count(2 * 10 ** 9, 1)          # 1.9 GB of bools: within 10 GB
    with pytest.raises(TorchRuntimeError, match="14.9 GB"):
        budget.check_count(2 * 10 ** 9, 8)      # as float64: not


def test_what_the_process_holds_counts_for_a_large_allocation() -> None:
    held = budget.resident_memory()
    budget.set_max_memory(held + 200 * (1 << 20))
    with pytest.raises(TorchRuntimeError, match="are in use"):
        budget.check_count(220 * (1 << 20), 1)   # (the process holds more than 20 MB)


def test_small_and_ordinary_results_pass() -> None:
    x = torch.ones(3, 1) + torch.ones(4)
    assert tuple(x.shape) == (3, 4)
    assert tuple(torch.ones(2, 3).repeat(2, 2).shape) == (4, 6)
    assert tuple(torch.cat([torch.ones(2), torch.zeros(3, dtype=torch.int64)]).shape) == (5,)
    assert F["one_hot"](torch.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]


def test_repeat_with_a_negative_count_is_pytorchs_error() -> None:
    with pytest.raises(TorchRuntimeError, match=re.escape("Trying to create tensor with negative dimension -2: [-2, 6]")):
        torch.ones(2, 3).repeat(-1, 2)


def test_no_limit() -> None:
    budget.set_max_memory(None)
    assert budget.max_memory() is None and not budget.limited()
    budget.check_count(10 ** 15, 8)


def test_the_default_is_half_the_physical_memory() -> None:
    total = budget.physical_memory()
    assert total and budget.default_max_memory() == total // 2


@pytest.mark.parametrize("text, value", [
    ("1024", 1024), ("512M", 512 << 20), ("2G", 2 << 30), ("1.5GB", 3 << 29), ("3gib", 3 << 30),
    ("64k", 64 << 10), ("none", None), ("0", None), ("off", None)])
def test_sizes_are_read_with_units(text, value) -> None:
    assert budget.parse_size(text) == value


def test_a_percentage_is_of_the_physical_memory() -> None:
    assert budget.parse_size("50%") == budget.physical_memory() // 2


@pytest.mark.parametrize("text", ["ten", "-1", "nan", "inf", "2X"])
def test_bad_sizes_are_refused(text) -> None:
    with pytest.raises(ValueError):
        budget.parse_size(text)


@pytest.mark.parametrize("nbytes, text", [
    (512, "512 bytes"), (2048, "2 kB"), (3 << 29, "1.5 GB"), (10 * GB, "10 GB"), (2 ** 65, "32 EB")])
def test_sizes_are_written_for_people(nbytes, text) -> None:
    assert budget.size_text(nbytes) == text


def test_index_select_and_diag_count_what_they_make() -> None:
    rows = torch.ones(2, 10 ** 6)
    with pytest.raises(TorchRuntimeError, match=refused(2 * 10 ** 10)):
        rows.index_select(0, torch.zeros(2 * 10 ** 4, dtype=torch.int64))
    with pytest.raises(TorchRuntimeError, match=refused(10 ** 10)):
        torch.diag(torch.ones(10 ** 5))
    assert rows.index_select(0, torch.tensor([1, 0, 1])).shape[0] == 3
    assert tuple(torch.diag(torch.ones(3), 1).shape) == (4, 4)
