"""The engine's opt-in tracers: several at once each hear every event; paused() silences them all."""

from __future__ import annotations

from gradcli.engine import api
from gradcli.engine.autograd import observe


class Counting(observe.Tracer):
    def __init__(self) -> None:
        self.events: list[str] = []

    def begin(self, *args) -> None:
        self.events.append("begin")

    def node_starts(self, node, grads) -> None:
        self.events.append(type(node).__name__)

    def end(self) -> None:
        self.events.append("end")


def backward_of_x_times_x() -> None:
    x = api.TORCH["tensor"]([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()


def test_two_tracers_hear_the_same_pass_and_none_is_left_after():
    first, second = Counting(), Counting()
    observe.add_tracer(first)
    observe.add_tracer(second)
    try:
        backward_of_x_times_x()
    finally:
        observe.remove_tracer(first)
        observe.remove_tracer(second)
    assert first.events == second.events == ["begin", "SumBackward0", "MulBackward0", "AccumulateGrad", "end"]
    assert observe.tracer is None


def test_paused_silences_every_tracer_and_puts_them_back():
    tracer = Counting()
    observe.add_tracer(tracer)
    try:
        with observe.paused():
            assert observe.tracer is None
            backward_of_x_times_x()
        assert observe.tracer is tracer
    finally:
        observe.remove_tracer(tracer)
    assert tracer.events == []
