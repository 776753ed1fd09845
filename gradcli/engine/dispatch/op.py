"""The op record: everything gradcli knows about one op, in one place.

Each op is declared once with ``defop``: its PyTorch signatures, a forward
function over NumPy arrays, the ``grad_fn`` name PyTorch gives its node, one
gradient formula per differentiable input (like a line of PyTorch's
``derivatives.yaml``), and the facts that make its forms, its graph node and
its in-place writes behave as PyTorch's.  From that one record come
``torch.<name>``, ``Tensor.<name>``, the in-place ``Tensor.<name>_`` and the
operators (``install`` publishes them); the runner reads nothing but the
record.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..autograd.formulas import Deriv
from .runner import rename_input, run
from .signature import ArgParser

# How an operator of Tensor calls an op (``Op.operators``).
BINARY = "binary"          # x + y: the op on (self, other), without argument parsing
REFLECTED = "reflected"    # 2 // x: the op on (other, self)
INPLACE = "inplace"        # x += y: the in-place op on (self, other)
METHOD = "method"          # -x, abs(x): the method form

# How an op's outputs get their tangents in forward-mode AD (``Op.jvp``; dispatch/jvp_rules.py).
POINTWISE = "pointwise"      # element by element: the backward formulas applied to the tangents
LINEAR = "linear"            # linear in its inputs together: the op applied to the tangents
MULTILINEAR = "multilinear"  # linear in each input alone: a sum of the op over the tangents
NO_JVP = "no_jvp"            # PyTorch has no forward formula: a dual input is an error

# What an in-place write may do to memory (``Op.inplace_memory``), checked before the kernel runs.
CHECKED = "checked"        # no element of self written twice, no partial overlap with an input
UNIQUE = "unique"          # no element of self written twice (fill_ with a tensor)
SHARED = "shared"          # may write memory several elements share (zero_, fill_ of a number)
UNTOUCHED = "untouched"    # writes nothing, yet counts as a write (x.copy_(x))


class Op:
    """One op's record.  Each field below is a class attribute with its default; ``Op(name, sigs,
    forward, field=value, ...)`` sets the ones an op gives (a record is made at import for every op,
    so this costs next to nothing: no generated ``__init__`` walks forty defaults)."""

    name: str
    sigs: list[str]
    forward: Callable[[dict], Any]
    node: str | Callable[[dict], str | None] | None = None
    inputs: tuple[str, ...] = ("self",)
    derivs: dict[str, Deriv]  # one formula per differentiable input (a fresh dict per record)

    # -- its forms ---------------------------------------------------------------------------
    function: bool = True
    method: bool = True
    inplace: bool = False
    # Where the function form also lives (besides torch): e.g. "nn.functional".
    also_in: tuple[str, ...] = ()
    # Other torch names of the function form (torch.concat and torch.concatenate are torch.cat).
    aliases: tuple[str, ...] = ()
    # Operators of Tensor that call the op: {"__add__": BINARY, "__iadd__": INPLACE, "__neg__": METHOD}.
    operators: dict[str, str] = {}  # (read only: never changed in place)
    numbers_as_tensors: bool | str | tuple = False  # "other": not for the first parameter; a tuple: those
    # Its BINARY operators take an ndarray as a tensor (``t == n``, PyTorch's __eq__); for the
    # others an ndarray operand is NumPy's to compute (see ops/numpy_bridge.py).
    array_operands: bool = False
    # Runs on the bound arguments of the function and method forms first (softmax's dtype=
    # casts the input before the op, as at::softmax does).
    prepare: Callable[[dict], None] | None = None
    # Runs on the bound arguments of the in-place form first: checks PyTorch makes before the
    # kernel's own (cumsum_'s dtype= may not change self's dtype).
    prepare_inplace: Callable[[dict], None] | None = None

    # -- its results -------------------------------------------------------------------------
    # The outputs are views of the first input (share memory and version counter).
    view: bool = False
    # A named return type (torch.return_types.max) for tuple results.
    returns: Callable[..., Any] | None = None
    # The result is a fresh C-contiguous array whatever the input's layout (reductions,
    # softmax: PyTorch allocates them), which decides what a later view of it does.
    contiguous: bool = False

    # -- its node ------------------------------------------------------------------------------
    # Inputs that PyTorch takes as a Scalar overload when given a Python number:
    # then they are not graph inputs at all (``x ** 2`` has one next function).
    scalar_inputs: tuple[str, ...] = ()
    # The scalar inputs choose one overload together (clamp's min and max): the Scalar
    # overload only when each is a number or None; then the Nones are no graph inputs either.
    joint_scalars: bool = False
    # Only the inputs that require grad get an edge (PyTorch's NotImplemented nodes).
    required_edges_only: bool = False
    # What an overload's node saves, when the op has several (max's dim overload keeps only the
    # indices); outputs named in any formula are otherwise saved whatever needs a gradient.
    saves: Callable[[dict], set] | None = None
    # The non-tensor values PyTorch's node exposes as grad_fn._saved_<name> (what its
    # derivatives.yaml line saves): bound arguments, "<input>_sym_sizes", "self_sym_numel", and
    # "indices" for a second output.  A dict names them per node when the overloads differ.
    exposes: tuple[str, ...] | dict[str, tuple[str, ...]] = ()
    # Exposed values that are not a bound argument as such, worked out from the saved values (var's
    # correction from its unbiased flag): name -> function of the node's saved dict.  (They belong to
    # the node class, which ops of the same node name share: only for a node name of one op.)
    exposed_values: dict[str, Callable[[dict], Any]] = {}  # (read only)
    # An integer result simply has no history (a dtype conversion, .long()); for any other op
    # PyTorch's set_history refuses to make one from inputs that require grad.
    integer_result_ok: bool = False

    # -- forward-mode AD -------------------------------------------------------------------------
    # How the outputs' tangents follow from the inputs' (autograd/jvp_rules.py): POINTWISE, LINEAR,
    # MULTILINEAR, a function, NO_JVP, or None: the backward formulas transposed.  A Catalog
    # gives its family's default.
    jvp: Any = None
    # PyTorch's formula is ``result: self_t`` (frac; fmod and remainder by a Scalar): the output's
    # tangent is self's own tensor, so a write into one shows in the other.  True, or a function
    # of the bound arguments for an overload.
    jvp_passes_tangent: bool | Callable[[dict], bool] = False

    # -- vmap ------------------------------------------------------------------------------------
    # Its batch rule (batching/rules.py): a kind (POINTWISE, REDUCTION, DIMS, UNARY) or a function
    # of its own; None: vmap over the op is refused, naming it.  A Catalog gives its family's default.
    vmap: Any = None

    # -- its in-place form ----------------------------------------------------------------------
    # The checks of a structured kernel's meta function (dtypes of the arguments): they run
    # before an in-place op's memory-overlap checks, as PyTorch's meta runs before its
    # TensorIterator is built.  (Out of place, the forward makes them itself.)
    meta: Callable[[dict], None] | None = None
    # What the write may do to memory (CHECKED, UNIQUE, SHARED, UNTOUCHED), or a function of the
    # bound arguments choosing it.
    inplace_memory: str | Callable[[dict], str] = CHECKED
    # The in-place form's inputs broadcast to self (TensorIterator's shape check comes first when
    # the kernel fails); not for addmm_, index_add_, tril_, ... whose inputs are no such operands.
    inplace_broadcasts: bool = True
    # Writing into an integer self records nothing (copy_, hand-written in PyTorch's autograd).
    grad_only_into_float: bool = False

    # The callables made from the record (function, method, in-place), each made once.
    forms: dict[str, Callable]  # (a fresh dict per record)

    fn_parser: ArgParser | None = None
    method_parser: ArgParser | None = None
    inplace_parser: ArgParser | None = None

    def __init__(self, name: str, sigs: list[str], forward: Callable[[dict], Any], **fields: Any) -> None:
        self.name = name
        self.sigs = sigs
        self.forward = forward
        self.derivs = {}
        self.forms = {}
        for key, value in fields.items():
            if key not in _FIELDS:
                raise TypeError(f"Op() got an unexpected field {key!r}")
            setattr(self, key, value)

    def __repr__(self) -> str:
        return f"<op {self.name}>"

    # The parsers are built on first use: parsing ~150 signatures at import would
    # cost start-up time for ops a script never calls.
    def parser(self, form: str) -> ArgParser:
        if form == "function":
            if self.fn_parser is None:
                self.fn_parser = ArgParser(self.sigs, self.numbers_as_tensors)
            return self.fn_parser
        if form == "method":
            if self.method_parser is None:
                self.method_parser = ArgParser([_strip_out(s) for s in self.sigs], self.numbers_as_tensors,
                                               method=True)
            return self.method_parser
        if self.inplace_parser is None:
            sigs = [_rename(_strip_out(s), self.name + "_") for s in self.sigs]
            self.inplace_parser = ArgParser(sigs, self.numbers_as_tensors, method=True)
        return self.inplace_parser

    def saved_int_kind(self, name: str) -> str | None:
        """``int`` for a parameter PyTorch keeps as int64 (its getter shows -1 as 2**64 - 1), ``ints``
        for an int[] one (a tuple, even of one int given alone), else None (the value as it is)."""
        for sig in self.parser("function").signatures:
            for p in sig.params:
                if p.name == name:
                    if p.base.startswith("int["):
                        return "ints"
                    return "int" if p.base in ("int", "SymInt") else None
        return None

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        """The op called as ``torch.<name>(...)`` (how one op's formulas call another)."""
        _, bound = self.parser("function").parse(args, kwargs)
        rename_input(bound)
        if self.prepare is not None:
            self.prepare(bound)
        return run(self, bound)


_FIELDS = frozenset(Op.__annotations__) - {"name", "sigs", "forward"}


def _strip_out(sig: str) -> str:
    return sig.replace(", *, Tensor? out=None)", ")").replace(", Tensor? out=None", "")


def _rename(sig: str, name: str) -> str:
    return name + sig[sig.index("("):]


def defop(name: str, sigs: str | Sequence[str], forward: Callable[[dict], Any], **kw: Any) -> Op:
    """A new op record (nothing is published until ``install``)."""
    return Op(name, [sigs] if isinstance(sigs, str) else list(sigs), forward, **kw)
