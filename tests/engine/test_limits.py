"""--max-elements: factories check before allocating, ops check what they make, views are free."""

from __future__ import annotations

import re
from typing import Iterator

import pytest

from gradcli.engine import api
from gradcli.engine.errors import TorchRuntimeError



class _Torch:
    """torch.X for the names of api.TORCH."""

    def __getattr__(self, name: str):
        return api.TORCH[name]


torch = _Torch()


@pytest.fixture(autouse=True)
def limit() -> Iterator[None]:
    api.set_max_elements(1000)
    yield
    api.set_max_elements(None)


def refused(count: int) -> str:
    return re.escape(f"gradcli refuses to create a tensor of {count} elements: the limit is 1000 (see --max-elements)")


def test_factories_are_checked_up_to_and_including_the_limit() -> None:
    assert torch.ones(1000).numel() == 1000
    with pytest.raises(TorchRuntimeError, match=refused(1001)):
        torch.zeros(7, 143)
    with pytest.raises(TorchRuntimeError, match=refused(2000)):
        torch.randn(2000)


def test_an_op_result_over_the_limit_is_refused() -> None:
    x = torch.ones(100)
    with pytest.raises(TorchRuntimeError, match=refused(10000)):
        x[:, None] * x
    with pytest.raises(TorchRuntimeError, match=refused(2000)):
        x.repeat(20)


def test_views_share_memory_and_are_not_counted() -> None:
    view = torch.ones(100).expand(50, 100)
    assert tuple(view.shape) == (50, 100)
    with pytest.raises(TorchRuntimeError, match=refused(5000)):
        view.contiguous()


def test_no_limit_by_default() -> None:
    api.set_max_elements(None)
    assert torch.ones(100, 100).numel() == 10000
