"""The backward pass: an iterative walk of the graph, in PyTorch's order.

No recursion anywhere, so a graph of any depth backpropagates.  Nodes run
when all their incoming gradients have arrived; among ready nodes the one
created last runs first (PyTorch orders its ready queue by sequence number),
which fixes the order in which hooks fire and gradients are summed.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Sequence

from ..batching import state as vmap_state
from ..errors import TorchRuntimeError, TorchTypeError
from ..kernels.summation import torch_sum
from ..shape_rules import is_expandable_to, sum_to_axes
from ..tensor import Tensor
from . import anomaly, grad_mode, observe
from .accumulate import AccumulateGrad
from .node import Node
from .views import Edge


def _needed_nodes(roots: list[Node], targets: set[Node]) -> set[Node]:
    """Nodes from which some target node can be reached (targets included)."""
    needed: set[Node] = set()
    visited: set[Node] = set()
    # Iterative post-order: a node is needed when it is a target or a child is needed.
    stack: list[tuple[Node, bool]] = [(r, False) for r in roots]
    while stack:
        node, done = stack.pop()
        if done:
            if node in targets or any(n in needed for n, _ in node.next_functions if n is not None):
                needed.add(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        for child, _ in node.next_functions:
            if child is not None and child not in visited:
                stack.append((child, False))
    return needed


def _all_nodes(roots: list[Node]) -> set[Node]:
    seen: set[Node] = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _shape_gradient(node: Node, index: int, grad: Tensor, tracer: object = None) -> Tensor:
    """Sum a broadcast gradient back to its input's shape and cast it to the input's dtype."""
    meta = node.input_metadata(index)
    if meta is None:
        return grad
    shape, dtype = meta
    if tuple(grad.shape) != shape:
        if not is_expandable_to(shape, grad.shape):
            got = "[" + ", ".join(map(str, grad.shape)) + "]"
            want = "[" + ", ".join(map(str, shape)) + "]"
            raise TorchRuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got {got} "
                f"but expected shape compatible with {want}")
        reduced = _summed_to(grad, shape)
        if tracer is not None:
            tracer.reduced(node, index, grad, reduced)
        grad = reduced
    if grad._dtype is not dtype:
        grad = grad.to(dtype)
    return grad


# The backward calls now running, innermost last (a hook may call backward): each its id and the
# nodes it will run and whether it accumulates into .grad -- what register_multi_grad_hook asks.
_tasks: list[tuple[int, set, bool]] = []
_task_ids = itertools.count()


def current_task_id() -> int:
    """PyTorch's _current_graph_task_id: the innermost running backward, -1 outside one."""
    return _tasks[-1][0] if _tasks else -1


def will_execute(node: Node) -> bool:
    """PyTorch's _will_engine_execute_node: whether the running backward will run ``node``."""
    if not _tasks:
        raise TorchRuntimeError("_will_engine_execute_node should only be called during the backward pass")
    _, needed, accumulates = _tasks[-1]
    if not accumulates and isinstance(node, AccumulateGrad):
        raise TorchRuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently "
                                "running autograd.grad(). This is currently not supported.")
    return node in needed


def _summed_to(grad: Tensor, shape: tuple) -> Tensor:
    """``grad.sum_to_size(shape)``; without create_graph nothing is recorded, so the sums go
    straight to the kernel (the op's own path costs more than a small sum)."""
    if grad_mode._enabled or grad._batched or grad._data.dtype.char not in "fd" or grad._fw is not None:
        return grad.sum_to_size(shape)   # (a tangent, a batch of gradients inside vmap: the op's path)
    data = grad._data
    if not shape:
        return Tensor._make(torch_sum(data), grad._dtype)
    axes, lead = sum_to_axes(data.shape, shape)
    summed = torch_sum(data, axes, True)
    return Tensor._make(summed.reshape(shape) if lead else summed, grad._dtype)


def run_backward(roots: Sequence[Edge], root_grads: Sequence[Tensor], *, keep_graph: bool,
                 create_graph: bool, inputs: Sequence[Edge] | None = None,
                 accumulate: bool = True) -> list["Tensor | None"]:
    """Run the graph from ``roots`` seeded with ``root_grads``.

    With ``accumulate`` (``backward``), gradients land in leaves' ``.grad``; when
    ``inputs`` is given only those receive them.  Without it
    (``autograd.grad``), the gradients arriving at the ``inputs`` edges are
    captured and returned, and no ``.grad`` changes.

    The set-up is one walk of the graph (the needed nodes and how many edges reach each);
    per node the loop does only what that node asks for (hooks, captures and the tracer are
    looked at only when present).
    """
    tracer = observe.tracer
    if tracer is not None and any(g is not None and g._batched for g in root_grads):
        tracer = None   # (a batch of backward passes inside vmap, jacrev's rows: the views show plain passes)
    if tracer is not None:
        tracer.begin(roots, root_grads, inputs, accumulate)
    plain = not vmap_state.depth   # (inside vmap the gradients may be batched: no array to read)
    root_nodes = [edge[0] for edge in roots]
    capture: dict[Node, list[tuple[int, int]]] = {}
    captured: list["Tensor | None"] = []
    if inputs is not None:
        for i, (node, nr) in enumerate(inputs):
            capture.setdefault(node, []).append((i, nr))
        captured = [None] * len(inputs)
        needed = _needed_nodes(root_nodes, set(capture))
    else:
        needed = _all_nodes(root_nodes)

    # Count, for every needed node, the edges arriving from needed nodes.
    deps: dict[Node, int] = {}
    get = deps.get
    for node in needed:
        for child, _ in node.next_functions:
            if child is not None and child in needed:
                deps[child] = get(child, 0) + 1

    buffers: dict[Node, list] = {}
    for (node, nr), grad in zip(roots, root_grads):
        if node not in needed:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.num_outputs
        buf[nr] = grad if buf[nr] is None else buf[nr] + grad

    ready: list = []
    tie = 0
    for node in dict.fromkeys(root_nodes):
        if node in needed and deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._seq, tie, node))
            tie += 1

    executed: list[Node] = []
    push, pop = heapq.heappush, heapq.heappop
    prev_mode = grad_mode._enabled
    check_nan = anomaly.enabled and anomaly.checks_nan
    grad_mode._set(create_graph)
    _tasks.append((next(_task_ids), needed, accumulate))
    try:
        while ready:
            node = pop(ready)[2]
            try:
                grads = buffers.pop(node, None) or [None] * node.num_outputs
                if node._tensor_pre_hooks or node._pre_hooks or node._retain_hooks:
                    grads = _run_pre_hooks(node, grads, tracer)
                if tracer is not None:
                    tracer.node_starts(node, grads)
                if capture and node in capture:
                    for index, nr in capture[node]:
                        captured[index] = grads[nr]
                    if isinstance(node, AccumulateGrad):
                        if not accumulate:
                            continue  # autograd.grad never touches .grad
                    elif not any(c in needed for c, _ in node.next_functions if c is not None):
                        continue  # nothing below this input is wanted
                if node.skips_without_grads and _all_none(grads):
                    outputs: list = [None] * len(node.next_functions)
                else:
                    outputs = node.apply(grads, create_graph)
                    if tracer is not None:
                        tracer.node_done(node, outputs)
                    if node._hooks:
                        # post hooks see the gradients already summed to their inputs' shapes (PyTorch
                        # validates a node's outputs before its post hooks run)
                        outputs = [g if g is None else _shape_gradient(node, i, g, tracer)
                                   for i, g in enumerate(outputs)]
                        outputs = _run_post_hooks(node, outputs, grads, tracer)
                executed.append(node)
                index = -1
                for (child, nr), grad in zip(node.next_functions, outputs):
                    index += 1
                    if child is None or child not in needed:
                        continue
                    if grad is not None:
                        meta = node.input_metadata(index)
                        if meta is not None and ((grad._data.shape if plain else tuple(grad.shape)) != meta[0]
                                                 or grad._dtype is not meta[1]):
                            grad = _shape_gradient(node, index, grad, tracer)
                        if check_nan:
                            anomaly.check_output(node, index, grad)
                        buf = buffers.get(child)
                        if buf is None:
                            buf = buffers[child] = [None] * child.num_outputs
                        if buf[nr] is None:
                            buf[nr] = grad
                        else:
                            earlier, buf[nr] = buf[nr], buf[nr] + grad
                            if tracer is not None:
                                tracer.summed(child, nr, earlier, grad, buf[nr])
                    left = deps[child] - 1
                    deps[child] = left
                    if left == 0:
                        push(ready, (-child._seq, tie, child))
                        tie += 1
            except Exception:
                if anomaly.enabled:
                    anomaly.report(node)  # (PyTorch's engine warns, then the error goes on)
                raise
    finally:
        _tasks.pop()
        grad_mode._set(prev_mode)
        if tracer is not None:
            tracer.end()
        if not keep_graph:
            for node in executed:
                node.release()
    return captured


def _all_none(grads: list) -> bool:
    # (by identity: list.count(None) would compare tensors with ==)
    for g in grads:
        if g is not None:
            return False
    return True


def _run_pre_hooks(node: Node, grads: list, tracer: object = None) -> list:
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                if grads[nr] is None:
                    break
                result = _call_hook(hook, grads[nr])
                if tracer is not None:
                    tracer.hook_ran(node, "tensor", hook, result)
                if result is not None:
                    grads = list(grads)
                    grads[nr] = _checked_hook_result(result, grads[nr], hook)
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            result = _call_hook(hook, tuple(grads))
            if tracer is not None:
                tracer.hook_ran(node, "prehook", hook, result)
            if result is not None:
                grads = _checked_hook_results(result, grads, hook)
    if node._retain_hooks:
        for nr, hook in node._retain_hooks.items():
            if grads[nr] is not None:
                hook(grads[nr])
                if tracer is not None:
                    tracer.hook_ran(node, "retain_grad", hook, grads[nr])
    return grads


def _run_post_hooks(node: Node, outputs: list, grads: list, tracer: object = None) -> list:
    for hook in list(node._hooks.values()):
        result = _call_hook(hook, tuple(outputs), tuple(grads))
        if tracer is not None:
            tracer.hook_ran(node, "hook", hook, result)
        if result is not None:
            outputs = _checked_hook_results(result, outputs, hook)
    return outputs


def _call_hook(hook: object, *args: object) -> object:
    if not callable(hook):  # (register_hook(5) is refused only when the hook is called)
        raise TorchTypeError(f"'{type(hook).__name__}' object is not callable")
    return hook(*args)


def hook_name(hook: object) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _checked_hook_results(result: object, previous: list, hook: object) -> list:
    """What a node's hook returned in place of ``previous``, checked as PyTorch's check_result does."""
    if not isinstance(result, tuple):
        raise TorchTypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(previous):
        raise TorchRuntimeError(f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
                                f"{len(result)}, but expected {len(previous)})")
    return [_checked_hook_result(new, old, hook) for new, old in zip(result, previous)]


def _checked_hook_result(result: object, grad: Tensor | None, hook: object = None) -> Tensor | None:
    """One value a hook returned in place of ``grad`` (PyTorch's check_single_result)."""
    if result is None:  # (a node hook's None in a place: that gradient is None from now on)
        return None
    if grad is None:
        raise TorchRuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TorchTypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if result._dtype is not grad._dtype:
        raise TorchRuntimeError(f"hook '{hook_name(hook)}' has changed the type of value (was "
                                f"torch.{grad._dtype.legacy_name}Tensor got torch.{result._dtype.legacy_name}Tensor)")
    if result.shape != grad.shape:
        raise TorchRuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")
    return result
