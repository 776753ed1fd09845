"""``torch.autograd.backward`` and ``torch.autograd.grad`` (and ``Tensor.backward``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..device import TorchAssertionError
from ..errors import TorchRuntimeError, TorchTypeError
from ..tensor import Tensor
from ..warnings import warn_once
from .accumulate import accumulate_into_leaf
from .engine import run_backward
from .views import gradient_edge


def _as_tensor_list(value: Any, what: str) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TorchTypeError(f"'{type(value).__name__}' object is not iterable")


def _check_input(t: Any) -> None:
    if not isinstance(t, Tensor):
        raise TorchRuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")


def _make_grads(outputs: list[Tensor], grads: list) -> list[Tensor]:
    """Fill in the seed gradients: ones for scalar outputs, checked shapes otherwise."""
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not isinstance(out, Tensor):
            raise TorchAssertionError("Expected output to be a torch.Tensor")
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise TorchRuntimeError("grad can be implicitly created only for scalar outputs")
            result.append(Tensor._make(np.ones(out._data.shape, dtype=out._dtype.np), out._dtype))
            continue
        if not isinstance(g, Tensor):
            raise TorchTypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if g.shape != out.shape:
            raise TorchRuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] has a shape "
                f"of {out.shape!r}.")
        result.append(g if g._dtype is out._dtype else g.to(out._dtype))
    return result


def _root_edges(outputs: list[Tensor]) -> list[tuple]:
    edges = []
    for i, out in enumerate(outputs):
        edge = gradient_edge(out)
        if edge is None:
            raise TorchRuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(edge)
    return edges


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: Any = None,
             create_graph: bool = False, grad_variables: Any = None, inputs: Any = None) -> None:
    """``torch.autograd.backward``: accumulate gradients into the leaves' ``.grad``."""
    outputs = _as_tensor_list(tensors, "tensors")
    if grad_tensors is None:
        grads: list = [None] * len(outputs)
    else:
        grads = _as_tensor_list(grad_tensors, "grad_tensors")
    if len(grads) != len(outputs):
        raise TorchRuntimeError(
            f"got {len(grads)} tensors and {len(outputs)} gradients")
    input_list = None
    if inputs is not None:
        input_list = _as_tensor_list(inputs, "inputs")
        if not input_list:
            raise TorchRuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in input_list:
            _check_input(t)
            if not t.requires_grad:
                raise TorchRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    seeds = _make_grads(outputs, grads)
    keep = create_graph if retain_graph is None else bool(retain_graph)
    roots = _root_edges(outputs)
    input_edges = None if input_list is None else [gradient_edge(t) for t in input_list]
    if create_graph:
        # the engine's TORCH_WARN_ONCE, for backward() only
        warn_once("Using backward() with create_graph=True will create a reference cycle between the "
                  "parameter and its gradient which can cause a memory leak. We recommend using "
                  "autograd.grad when creating the graph to avoid this. If you have to use this function, "
                  "make sure to reset the .grad fields of your parameters to None after use to break the "
                  "cycle and avoid the leak. (Triggered internally at "
                  "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
    captured = run_backward(roots, seeds, keep_graph=keep, create_graph=create_graph,
                            inputs=input_edges, accumulate=True)
    if input_list is not None:
        # Non-leaf inputs get their gradient in .grad, as if they retained it.
        for t, g in zip(input_list, captured):
            if t._grad_fn is not None:
                accumulate_into_leaf(t, g, create_graph)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: Any = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: Any = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, nothing accumulated."""
    out_list = _as_tensor_list(outputs, "outputs")
    in_list = _as_tensor_list(inputs, "inputs")
    if not in_list:
        raise TorchRuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if grad_outputs is None:
        grads: list = [None] * len(out_list)
    else:
        grads = _as_tensor_list(grad_outputs, "grad_outputs")
    if len(grads) != len(out_list):
        raise TorchRuntimeError(
            f"grad requires one grad_output per output, got {len(grads)} grad_outputs and "
            f"{len(out_list)} outputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in in_list:
        _check_input(t)
    # PyTorch's order: the seeds, then each output's edge, then each input's
    seeds = _make_grads(out_list, grads)
    roots = _root_edges(out_list)
    input_edges = []
    for t in in_list:
        edge = gradient_edge(t)
        if edge is None:
            raise TorchRuntimeError("One of the differentiated Tensors does not require grad")
        input_edges.append(edge)
    keep = create_graph if retain_graph is None else bool(retain_graph)
    captured = run_backward(roots, seeds, keep_graph=keep, create_graph=create_graph,
                            inputs=input_edges, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(in_list, captured)):
        if g is None:
            if materialize_grads:
                g = Tensor._make(np.zeros(t._data.shape, dtype=t._dtype.np), t._dtype)
            elif not allow_unused:
                raise TorchRuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
        elif not create_graph:
            tangent, g = g._fw, g.detach()
            g._fw = tangent   # (the engine's result keeps its forward gradient, as in PyTorch)
        result.append(g)
    return tuple(result)
