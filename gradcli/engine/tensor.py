"""The Tensor: a NumPy array plus the autograd state PyTorch keeps beside it.

This file holds the state and the parts of Tensor that are not ops
(properties, Python protocols such as ``bool()`` and ``len()``, ``backward``,
hooks).  Every op -- ``exp``, ``x + y``, ``x.add_``, indexing, the legacy
``torch.Tensor(...)`` constructor -- is published on the class from its record
in ``gradcli.engine.ops`` by ``gradcli.engine.install``.

Invariants:
* ``_data`` is always an ``np.ndarray`` (0-dim for scalars) whose dtype is
  ``_dtype.np``.  In-place ops write into that array, never replace it, so
  views, ``detach()`` and ``.data`` keep sharing memory as in PyTorch.
* Views share their base's version counter ``_vc``; every in-place change
  bumps it, and saved tensors compare against it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from . import dtypes
from .device import CPU
from .errors import TorchIndexError, TorchOverflowError, TorchRuntimeError, TorchTypeError, TorchValueError
from .layout import byte_strides, strided
from .printing import tensor_repr
from .shape_rules import wrap_dim
from .size import Size
from .warnings import warn, warn_once
from .batching import state as vmap_state


_new = object.__new__
# The gradient transforms of torch.func now running (batching/state.py's GradLayer), outermost
# first: a tensor made while one runs keeps them, and prints as PyTorch's wrappers do
_grad_layers: tuple = ()

IN_TRANSFORM = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using torch.autograd.functional.* APIs) inside "
    "of a function being transformed by a functorch transform. This is unsupported, please attempt to use the "
    "functorch transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function "
    "being transformed instead.")


class VersionCounter:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")

# Attributes and methods defined here that a script may use; the op table adds its own.
_CORE_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "is_leaf", "requires_grad", "grad", "grad_fn", "data", "T",
    "mT", "retains_grad", "output_nr", "_version", "is_cuda", "layout", "itemsize", "nbytes", "_base",
    "size", "dim", "ndimension", "numel", "nelement", "item", "tolist", "backward", "retain_grad",
    "register_hook", "detach", "detach_", "requires_grad_", "is_contiguous", "is_floating_point",
    "element_size", "type", "stride", "storage_offset", "cpu", "is_complex", "numpy",
    "is_signed", "is_shared", "is_sparse", "is_quantized", "is_meta", "is_nested",
    "dim_order", "get_device",
})


class Tensor:
    # Every tensor sets the slots; the rest of the state keeps its class-level default until
    # set (a leaf that requires grad, a view, a retained grad ...), so making the many
    # intermediate tensors of a graph costs six stores.
    __slots__ = ("_data", "_dtype", "_grad_fn", "_output_nr", "_vc", "_wrapped", "__dict__", "__weakref__")
    _requires_grad = False
    _grad: "Tensor | None" = None
    _base: "Tensor | None" = None
    _view_fn: Callable | None = None
    _view_ver = 0
    _creation: str | None = None  # how a view was made: None, "no_grad", "multi" or "custom" (see autograd/views.py)
    _retains_grad = False
    _accumulator: Any = None
    _fw: dict | None = None  # dual level -> tangent: forward-mode AD (autograd/forward_ad.py)
    # a BatchedTensor of vmap (batching/batched_tensor.py): how code outside the batching package
    # asks (a class attribute: no import, no cost to a plain tensor)
    _batched = False
    _layers: tuple = ()   # the gradient transforms running when it was made (see _grad_layers)

    __script_attrs__: frozenset[str] = _CORE_ATTRS
    # An ndarray on the left of an operator leaves it to the tensor (NumPy defers to the higher
    # priority), as with PyTorch's tensors; ops/numpy_bridge.py publishes __array__.
    __array_priority__ = 1000
    __script_settable__ = frozenset({"requires_grad", "grad", "data"})

    # -- construction -----------------------------------------------------------------
    # (torch.Tensor(...), PyTorch's legacy constructor, is a factory: ops/factories.py sets __new__.)
    @staticmethod
    def _make(data: Any, dtype: "dtypes.DType | None" = None) -> "Tensor":
        """A new leaf around ``data`` (an ndarray; NumPy scalars are made 0-dim)."""
        if type(data) is not np.ndarray:
            data = np.asarray(data)
        if dtype is None:
            dtype = dtypes.from_numpy(data.dtype)
        t = _new(Tensor)
        t._data = data
        t._dtype = dtype
        t._grad_fn = None
        t._output_nr = 0
        t._vc = VersionCounter()
        t._wrapped = False
        if _grad_layers:
            t._layers = _grad_layers
        return t

    def _own_copy(self) -> "Tensor":
        return Tensor._make(self._data.copy(), self._dtype)

    # -- basic properties ---------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size._of(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if not isinstance(self, Tensor):  # (through the class: checked here, size is called often)
            raise TorchTypeError("descriptor 'size' for 'torch._C.TensorBase' objects doesn't apply to a "
                                 f"'{_shown_type(self)}' object")
        if dim is None:
            return Size._of(self._data.shape)
        return self._data.shape[_dim_of(self, _dim_argument("size", dim))]

    @property
    def dtype(self) -> "dtypes.DType":
        return self._dtype

    @property
    def device(self) -> Any:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def layout(self) -> Any:
        return strided

    @property
    def ndim(self) -> int:
        return self._data.ndim

    size.__checks_self__ = True  # type: ignore[attr-defined]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.size * self._dtype.itemsize

    def stride(self, dim: int | None = None) -> Any:
        strides = tuple(s // self._dtype.itemsize for s in byte_strides(self._data))
        if dim is None:
            return strides
        return strides[_dim_of(self, _dim_argument("stride", dim))]

    def storage_offset(self) -> int:
        base = self._data
        while True:
            # as_strided's views hang off a holder object whose own .base is the array
            parent = base.base
            if parent is not None and not isinstance(parent, np.ndarray):
                parent = getattr(parent, "base", None)
            if not isinstance(parent, np.ndarray):
                break
            base = parent
        offset = self._data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return offset // self._dtype.itemsize

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return bool(self._data.flags.c_contiguous)

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return False

    @property
    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return f"torch.{self._dtype.legacy_name}Tensor"
        return self.to(dtype)

    def cpu(self) -> "Tensor":
        return self

    def get_device(self) -> int:
        return -1

    # -- autograd state -----------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        if self._view_fn is None:
            return self._requires_grad or self._grad_fn is not None
        if self._view_ver != self._vc.value and self._creation is None:
            autograd_views.refresh_view_grad_fn(self)
        # A view requires grad when its base does, even one made under no_grad (PyTorch's
        # DifferentiableViewMeta::requires_grad); such a view is a leaf without an edge.
        return self._requires_grad or self._grad_fn is not None or self._base.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: object) -> None:
        if not isinstance(value, bool):
            raise TorchRuntimeError("requires_grad must be a bool")
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if vmap_state.depth or vmap_state.grad_depth:
            raise TorchRuntimeError(IN_TRANSFORM)
        if not isinstance(requires_grad, bool):
            raise TorchTypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}")
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients",
                                method=True)
        return self

    def _set_requires_grad(self, value: bool, dtype_message: str, method: bool = False) -> None:
        if self._grad_fn is not None:
            if method and value:
                return  # requires_grad_() on a non-leaf is allowed and changes nothing
            message = "you can only change requires_grad flags of leaf variables."
            if not value:
                message += (" If you want to use a computed variable in a subgraph that doesn't require "
                            "differentiation use var_no_grad = var.detach().")
            raise TorchRuntimeError(message)
        if value and not self._dtype.is_floating_point:
            raise TorchRuntimeError(dtype_message)
        self._requires_grad = value

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad_fn(self) -> Any:
        if self._view_fn is not None and self._view_ver != self._vc.value:
            autograd_views.refresh_view_grad_fn(self)
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        return self._vc.value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def grad(self) -> "Tensor | None":
        if self._grad_fn is not None and not self._retains_grad:
            warn(_NON_LEAF_GRAD_WARNING)
        return self._grad

    @grad.setter
    def grad(self, value: object) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TorchTypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._dtype is not self._dtype:
                raise TorchRuntimeError(
                    f"attempting to assign a gradient with dtype '{value._dtype.c_name}' to a "
                    f"tensor with grad_dtype '{self._dtype.legacy_name}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
                    "with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging "
                    "the dtypes of a tensor and its gradient may break downstream systems that assume they match.")
            if value.shape != self.shape:
                raise TorchRuntimeError(
                    f"attempting to assign a gradient of size '{_list(value.shape)}' to a tensor of size "
                    f"'{_list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
        self._grad = value

    @property
    def data(self) -> "Tensor":
        # Shares memory, but not the version counter: changes through .data are not tracked.
        return Tensor._make(self._data, self._dtype)

    @data.setter
    def data(self, value: object) -> None:
        if not isinstance(value, Tensor):
            raise TorchTypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self.requires_grad and not value._dtype.is_floating_point:
            raise TorchRuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data
        self._dtype = value._dtype

    @property
    def _base_tensor(self) -> "Tensor | None":
        return self._base

    def _grad_accumulator(self) -> Any:
        """The AccumulateGrad node of a leaf that requires grad (one per leaf)."""
        if self._accumulator is None:
            self._accumulator = autograd_accumulate.AccumulateGrad(self)
        return self._accumulator

    def detach(self) -> "Tensor":
        t = Tensor._make(self._data, self._dtype)
        t._vc = self._vc  # detach() shares the version counter (unlike .data)
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise TorchRuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        if self._fw is not None:
            self._fw = None   # (its forward gradient goes too, as in PyTorch)
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise TorchRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        target = self

        def retain(grad: "Tensor") -> None:
            if target._grad is None:
                target._grad = grad.detach()._own_copy() if not grad.requires_grad else grad + 0
            else:
                target._grad = target._grad + grad
        self._grad_fn.set_retain_hook(self._output_nr, retain)

    def register_hook(self, hook: Callable) -> Any:
        if not self.requires_grad:
            raise TorchRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn.add_tensor_hook(self._output_nr, hook)
        return self._grad_accumulator().add_tensor_hook(0, hook)

    def backward(self, gradient: Any = None, retain_graph: Any = None, create_graph: bool = False,
                 inputs: Any = None) -> None:
        autograd_backward.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- Python scalars and protocols -----------------------------------------------------
    def item(self) -> Any:
        n = self._data.size
        if n != 1:
            raise TorchRuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._data.item() if self._data.ndim == 0 else self._data.reshape(()).item()

    def tolist(self) -> Any:
        n = self._data.size
        if n > 4096:  # a Python number and its place in a list: 32 bytes (an expanded view's too)
            from .budget import check_bytes
            check_bytes(n * 32, f"a list of {n} numbers")
        return self._data.tolist()

    def _one_element(self) -> Any:
        if self._data.size != 1:
            raise TorchValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        if self.requires_grad:
            # PyTorch 2.13's THPVariable_float_scalar, TORCH_WARN_ONCE
            warn_once("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first. (Triggered internally at "
                      "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")
        return float(self._one_element())

    def __int__(self) -> int:
        value = self._one_element()
        try:
            return int(value)
        except (ValueError, OverflowError) as error:   # nan, inf: Python's own error, the script's
            raise (TorchValueError if isinstance(error, ValueError) else TorchOverflowError)(str(error)) from None

    def __index__(self) -> int:
        if self._data.size != 1 or self._dtype.category != dtypes.INTEGRAL:
            raise TorchTypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    def __complex__(self) -> complex:
        return complex(self._one_element())

    def __bool__(self) -> bool:
        n = self._data.size
        if n == 1:
            return bool(self._data.reshape(()).item())
        if n == 0:
            raise TorchRuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise TorchRuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TorchTypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._data.ndim == 0:
            raise TorchTypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element: object) -> bool:
        if isinstance(element, (Tensor, int, float, bool)):
            return bool((self == element).any().item())
        raise TorchRuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        if self._layers:   # (made inside torch.func's transforms)
            from .printing.wrappers import wrapped_repr
            return wrapped_repr(self)
        grad_fn = self._grad_fn
        tangent = None
        if self._fw is not None:   # a dual tensor: its tangent as an f-string shows it (a 0-d one as a number)
            from .autograd.forward_ad import tangent_of
            found = tangent_of(self)
            tangent = None if found is None else format(found, "")
        return tensor_repr(
            self._data, self._dtype.name, default_dtype=dtypes.get_default_dtype().name,
            requires_grad=self.requires_grad, grad_fn=None if grad_fn is None else type(grad_fn).__name__,
            tangent=tangent)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            try:
                return format(self.item(), spec)
            except ValueError as e:  # Python's own: "Unknown format code 'd' for object of type 'float'"
                raise TorchValueError(str(e)) from None
        if spec:
            raise TorchTypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __reduce__(self) -> Any:
        raise TorchTypeError("cannot pickle 'Tensor' object")

    def __deepcopy__(self, memo: dict) -> "Tensor":
        if not self.is_leaf:
            raise TorchRuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        t = self.detach()._own_copy()
        t._requires_grad = self._requires_grad
        return t


Tensor.__module__ = "torch"


def _list(shape: tuple) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _dim_argument(method: str, dim: Any) -> int:
    """The ``dim`` of ``size(dim)``/``stride(dim)`` as PyTorch's parser takes it."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TorchTypeError(f"{method}(): argument 'dim' (position 1) must be int, not {_shown_type(dim)}")
    if not -2 ** 63 <= dim < 2 ** 63:
        raise TorchValueError("Overflow when unpacking long long")
    return int(dim)


def _shown_type(value: Any) -> str:
    """A value's type as PyTorch's messages name it (NumPy's types with their module)."""
    cls = type(value)
    return f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__


def _dim_of(t: "Tensor", dim: int) -> int:
    if t._data.ndim == 0:  # (wrap_dim lets 0 and -1 pass for a 0-dim tensor: there is no size to read)
        raise TorchIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, t._data.ndim)


def wrap_scalar(value: Any) -> Tensor:
    """A Python number as PyTorch wraps it: 0-dim, lowest priority in type promotion."""
    if type(value) is float:
        t = Tensor._make(np.array(value, dtype=np.float64), dtypes.float64)
    elif isinstance(value, bool):
        t = Tensor._make(np.array(value, dtype=np.bool_), dtypes.bool_)
    elif isinstance(value, int):
        try:
            t = Tensor._make(np.array(value, dtype=np.int64), dtypes.int64)
        except OverflowError:
            raise TorchRuntimeError("Overflow when unpacking long long") from None
    else:
        t = Tensor._make(np.array(value, dtype=np.float64), dtypes.float64)
    t._wrapped = True
    return t


# Autograd is built on Tensor (its modules import this one), and Tensor's autograd entry points
# (backward, a leaf's AccumulateGrad, a view's refreshed grad_fn) call into it: the one cycle of
# the engine, closed here at the bottom, by module, so either side may be imported first.
from .autograd import accumulate as autograd_accumulate  # noqa: E402
from .autograd import backward as autograd_backward  # noqa: E402
from .autograd import views as autograd_views  # noqa: E402
