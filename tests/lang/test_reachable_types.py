"""Every value a script can reach has a documented type, and every attribute a script can read on it
is on the whitelist (reachable_types.txt; tests/lang/reachable.py walks the values and rewrites it)."""

from __future__ import annotations

import types

import pytest

from attacks import attempt
from reachable import as_text, read_whitelist, walk

from gradcli.lang.classes import SPECIAL_METHODS

# What no walk may meet: Python's own machinery and gradcli's.
FORBIDDEN = (types.FrameType, types.CodeType, types.ModuleType, types.CellType)


@pytest.fixture(scope="module")
def walked():
    return walk()


def test_the_walk_starts_from_a_working_setup(walked):
    _, _, problems = walked
    assert problems == []


def test_every_reachable_type_and_attribute_is_on_the_whitelist(walked):
    found, _, _ = walked
    expected = read_whitelist()
    new = {key: sorted(names - expected.get(key, set())) for key, names in found.items()}
    new = {key: names for key, names in new.items() if names or key not in expected}
    assert new == {}, "reachable but not on the whitelist (review, then python tests/lang/reachable.py):\n" + \
        as_text({key: set(names) for key, names in new.items()})
    gone = {key: sorted(names - found.get(key, set())) for key, names in expected.items()}
    gone = {key: names for key, names in gone.items() if names or key not in found}
    assert gone == {}, "on the whitelist but no longer reachable: rewrite it (python tests/lang/reachable.py)"


def test_no_reachable_name_is_gradcli_s_or_a_hidden_dunder(walked):
    found, _, _ = walked
    allowed_dunders = {"__name__", "__doc__"} | SPECIAL_METHODS
    for key, names in found.items():
        assert "gradcli" not in key
        if key == "<module 'torch'>":
            names = names - {"__version__"}     # (documented: the PyTorch version gradcli follows)
        assert not {name for name in names if name.startswith("__") and name not in allowed_dunders}, key


def test_no_frame_code_module_or_cell_is_reachable(walked):
    _, classes, _ = walked
    assert not [cls for cls in classes if issubclass(cls, FORBIDDEN)]
    # gradcli's own classes that values have: each prints as the Python or PyTorch class it stands for
    # (the error classes as the builtin they subclass; a metaclass's instances are classes)
    internal = {cls.__qualname__ for cls in classes if cls.__module__.startswith("gradcli.")
                and not issubclass(cls, (BaseException, type))}
    assert internal == set(), internal


def test_a_type_a_script_holds_is_a_documented_constructor_or_refuses():
    result = attempt("x = tensor([1.], grad)\ny = x * 2\n"
                 "for t in [type(len), type(lambda: 0), type(y.grad_fn), type(iter([])), type((a for a in [])),\n"
                 "          type({}.keys()), type(list[int]), type(int | None), type(tensor([1.]).add)]:\n"
                 "    try:\n"
                 "        t()\n"
                 "    except TypeError as e:\n"
                 "        print(t, '|', e)\n")
    assert result.out.splitlines() == [
        "<class 'builtin_function_or_method'> | cannot create 'builtin_function_or_method' instances",
        "<class 'function'> | cannot create 'function' instances",
        "<class 'MulBackward0'> | cannot create 'MulBackward0' instances",
        "<class 'list_iterator'> | cannot create 'list_iterator' instances",
        "<class 'generator'> | cannot create 'generator' instances",
        "<class 'dict_keys'> | cannot create 'dict_keys' instances",
        "<class 'types.GenericAlias'> | cannot create 'types.GenericAlias' instances",
        "<class 'types.UnionType'> | cannot create 'types.UnionType' instances",
        "<class 'builtin_function_or_method'> | cannot create 'builtin_function_or_method' instances",
    ], result.err


def test_what_a_script_reads_through_a_class():
    """Methods through a class are the unbound methods; a data attribute is an inert view printing as
    PyTorch's or Python's descriptor (torch.Tensor.shape, int.real), never the engine's property."""
    result = attempt("import torch\nx = tensor([1., 2.])\n"
                     "print(torch.Tensor.shape, type(x).grad_fn, int.real, range.start)\n"
                     "print(torch.Tensor.add(x, 1), str.upper('a'), type(x).__name__, type(x.shape) is torch.Size)\n"
                     "print(type(torch.Tensor.shape), type(int.real), type(range.start))\n"
                     "torch.Tensor.shape.fget\n")
    assert result.out.splitlines() == [
        "<attribute 'shape' of 'torch._C.TensorBase' objects> <attribute 'grad_fn' of 'torch._C.TensorBase' objects> "
        "<attribute 'real' of 'int' objects> <member 'start' of 'range' objects>",
        "tensor([2., 3.]) A Tensor True",
        "<class 'getset_descriptor'> <class 'getset_descriptor'> <class 'member_descriptor'>",
    ], result.err
    assert result.headline == "AttributeError: 'getset_descriptor' object has no attribute 'fget'"
