"""Findings of the long fuzz run (tests/fuzz, seed 14) that ended in an internal error, a leaked
internal name, or past a limit: each is now a located script error worded as Python 3.11 or
PyTorch 2.13 word it, or the same result as theirs."""

from __future__ import annotations

import io

import pytest

from gradcli.lang import Session


class Result:
    def __init__(self, out: str, err: str, outcome) -> None:
        self.out, self.err, self.code = out, err, outcome.exit_code


def run_real(text: str, **options) -> Result:
    """``text`` run as a file on the real engine."""
    out, err = io.StringIO(), io.StringIO()
    session = Session(stdout=out, stderr=err, **options)
    outcome = session.run_source(text, "test.ag", echo="none")
    return Result(out.getvalue(), err.getvalue(), outcome)


def first_error(result: Result) -> str:
    assert result.code == 1, (result.out, result.err)
    return result.err.splitlines()[0]


# ---------------------------------------------------------------- 1: the depth-counting iterators
@pytest.mark.parametrize("call, message", [
    ("enumerate()", "TypeError: enumerate() missing required argument 'iterable'"),
    ("enumerate(start=1)", "TypeError: 'start' is an invalid keyword argument for enumerate()"),
    ("enumerate([1], iterable=[1])", "TypeError: 'iterable' is an invalid keyword argument for enumerate()"),
    ("enumerate([1], dim=True)", "TypeError: 'dim' is an invalid keyword argument for enumerate()"),
    ("enumerate([1], 1, 2)", "TypeError: enumerate() takes at most 2 arguments (3 given)"),
    ("enumerate(*[(1, 2), (3, 4)])", "TypeError: 'tuple' object cannot be interpreted as an integer"),
    ("map(len)", "TypeError: map() must have at least two arguments."),
    ("map(len, 5)", "TypeError: 'int' object is not iterable"),
    ("filter(False)", "TypeError: filter expected 2 arguments, got 1"),
    ("zip([1], k=1)", "TypeError: 'k' is an invalid keyword argument for zip()"),
    ("itertools.islice([1], float('nan'))",
     "ValueError: Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."),
    ("itertools.chain(1, k=2)", "TypeError: chain() takes no keyword arguments"),
])
def test_bad_arguments_of_the_chained_iterators_are_pythons_errors(run, call, message):
    result = run(f"import itertools\ntry:\n    {call}\nexcept Exception as e:\n    print(type(e).__name__, e)\n{call}\n")
    kind, text = message.split(": ", 1)
    assert result.out == f"{kind} {text}\n"
    assert result.err.splitlines()[0] == f"test.ag:6:1: {message}"


def test_enumerate_by_keyword_and_errors_of_a_scripts_iter_pass_as_they_are(run):
    result = run("class It:\n    def __iter__(self):\n        raise KeyError('mine')\n"
                 "print(list(enumerate(start=2, iterable='ab')), list(enumerate(iterable='a')))\n"
                 "try:\n    zip([1], It())\nexcept KeyError as e:\n    print('caught', e)\n")
    assert (result.out, result.err) == ("[(2, 'a'), (3, 'b')] [(0, 'a')]\ncaught 'mine'\n", "")


# ---------------------------------------------------------------- 2: out= into an expanded tensor
@pytest.mark.parametrize("call", ["torch.sqrt(w, out=w)", "torch.ge(w, 4, out=w)",
                                  "torch.sqrt(torch.ones(3, 4), out=torch.zeros(1, dtype=torch.long).expand(3, 4))",
                                  "torch.cat([torch.ones(3, 4)], out=w)"])
def test_out_into_an_expanded_tensor_is_pytorchs_overlap_error(call):
    result = run_real(f"import torch\nw = torch.ones(1).expand(3, 4)\n{call}\n")
    assert first_error(result) == (
        "test.ag:3:1: RuntimeError: unsupported operation: more than one element of the written-to "
        "tensor refers to a single memory location. Please clone() the tensor before performing the operation.")


def test_out_into_an_empty_or_plain_tensor_still_resizes_it():
    result = run_real("import torch\ne = torch.zeros(0)\nprint(torch.tan(torch.ones(1).expand(3), out=e), e.shape)\n")
    assert (result.out, result.err) == ("tensor([1.5574, 1.5574, 1.5574]) torch.Size([3])\n", "")


# ---------------------------------------------------------------- 3: torch.typename of script values
@pytest.mark.parametrize("value, name", [("print", "print"), ("getattr", "getattr"), ("abs", "abs"),
                                         ("f", "__main__.f"), ("lambda: 0", "__main__.<lambda>"),
                                         ("5", "int"), ("C()", "__main__.C"), ("torch.float32", "torch.dtype")])
def test_typename_of_a_script_value_is_pytorchs_never_gradclis(value, name):
    result = run_real(f"import torch\ndef f():\n    pass\nclass C:\n    pass\ntorch.optim.SGD([{value}], lr=0.1)\n")
    assert first_error(result) == f"test.ag:6:1: TypeError: optimizer can only optimize Tensors, but one of the params is {name}"
    result = run_real(f"import torch\ndef f():\n    pass\nm = torch.nn.Module()\nm.register_buffer('b', {value if value != 'C()' else 'f'})\n")
    shown = name if value != "C()" else "__main__.f"
    assert first_error(result) == (f"test.ag:5:1: TypeError: cannot assign '{shown}' object to buffer 'b' "
                                   "(torch Tensor or None required)")


# ---------------------------------------------------------------- 4: torch.Size times a huge int
@pytest.mark.parametrize("product", ["s * 9999999999999999999999999", "-10 ** 30 * s"])
def test_a_size_repeated_past_an_index_is_pythons_overflow_error(product):
    result = run_real(f"import torch\ns = torch.Size([2, 3])\n{product}\n")
    assert first_error(result) == "test.ag:3:1: OverflowError: cannot fit 'int' into an index-sized integer"


# ---------------------------------------------------------------- 5: expand to a negative size
@pytest.mark.parametrize("sizes", ["300, -10 ** 9", "3, -2", "-5", "2 ** 62, 4"])
def test_expand_to_a_negative_or_huge_size_is_pytorchs_numel_overflow(sizes):
    result = run_real(f"import torch\ntorch.ones(1).expand({sizes})\n")
    assert first_error(result) == "test.ag:2:1: RuntimeError: numel: integer multiplication overflow"


def test_an_empty_expand_with_a_negative_size_is_refused_cleanly():
    # (PyTorch makes torch.Size([0, -3]); a NumPy array cannot have it)
    result = run_real("import torch\ntorch.ones(1).expand(0, -3)\n")
    assert first_error(result).startswith("test.ag:2:1: NotImplementedError: gradcli does not support")


# ---------------------------------------------------------------- 6: many tensors at once
def test_unpacking_a_long_tensor_is_checked_against_the_memory_budget():
    from gradcli.engine import budget
    before = budget.max_memory()
    budget.set_max_memory(256 * 2**20)
    try:
        result = run_real("import torch\nr = torch.ones(10 ** 6)\nprint(len(r.unbind()[:2]))\na = [*r]\n")
    finally:
        budget.set_max_memory(before)
    assert result.out == ""
    assert first_error(result).startswith("test.ag:3:11: MemoryError: gradcli refuses to build a tuple of 1000000 tensors (")
