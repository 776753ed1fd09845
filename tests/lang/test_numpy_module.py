"""The NumPy a script imports: NumPy's own functions, and nothing that reaches outside the script."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.lang import numpy_module

# What a script must never reach through numpy: files, processes, callables run by NumPy, memory.
OUTSIDE = """load save savez savetxt loadtxt genfromtxt fromfile tofile memmap frompyfunc vectorize
    apply_along_axis apply_over_axes fromfunction piecewise ctypeslib lib testing f2py""".split()


def test_every_listed_name_is_numpy_s_own() -> None:
    for name, value in numpy_module.members().items():
        assert value is getattr(np, name), name
    for name, value in numpy_module.random_members().items():
        assert value is getattr(np.random, name), name


def test_nothing_outside_is_listed() -> None:
    listed = set(numpy_module.FUNCTIONS) | set(numpy_module.RANDOM)
    for names in numpy_module.ATTRIBUTES.values():
        listed |= names
    assert not listed & set(OUTSIDE)
    assert not {"data", "base", "ctypes", "flags", "tofile", "dump", "dumps", "__array_interface__"} & listed


@pytest.mark.parametrize("code, message", [
    ("import numpy as np\nnp.ones(2).tofile('x')",
     "NotImplementedError: gradcli does not support numpy.ndarray.tofile (a script has the subset of NumPy that "
     "PyTorch's tutorials use)"),
    ("import numpy as np\nnp.ones(2).ctypes", "NotImplementedError: gradcli does not support numpy.ndarray.ctypes "
     "(a script has the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.ones(2).data", "NotImplementedError: gradcli does not support numpy.ndarray.data "
     "(a script has the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.ones(2).base", "NotImplementedError: gradcli does not support numpy.ndarray.base "
     "(a script has the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.ones(2).__array_interface__",
     "AttributeError: 'numpy.ndarray' object has no attribute '__array_interface__'"),
    ("import numpy as np\nnp.load", "NotImplementedError: gradcli does not support numpy.load (a script has the "
     "subset of NumPy that PyTorch's tutorials use)"),
    ("from numpy import fromfile", "NotImplementedError: gradcli does not support numpy.fromfile (a script has "
     "the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy.ctypeslib", "NotImplementedError: gradcli does not support numpy.ctypeslib (a script has the "
     "subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.add.reduce", "NotImplementedError: gradcli does not support numpy.ufunc.reduce (a "
     "script has the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.float32(1).__class__", "AttributeError: 'numpy.float32' object has no attribute "
     "'__class__'"),
    ("import numpy as np\nnp.ones(2).dtype.type", "NotImplementedError: gradcli does not support "
     "numpy.dtypes.Float64DType.type (a script has the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.random.default_rng", "NotImplementedError: gradcli does not support "
     "numpy.random.default_rng (a script has the subset of NumPy that PyTorch's tutorials use)"),
    ("import numpy as np\nnp.__file__", "AttributeError: module 'numpy' has no attribute '__file__'"),
])
def test_the_sandbox_holds_with_numpy(run, code, message):
    result = run(code + "\n")
    assert result.code == 1
    assert result.headline == message
    assert "Traceback" not in result.err


def test_arrays_print_and_compute_as_numpy_does(run):
    result = run("import numpy as np\na = np.arange(6).reshape(2, 3)\nprint(a)\nprint(repr(a.T), a.sum(), a.dtype)\n"
                 "np.random.seed(0)\nprint(np.random.rand(2))\nb = np.zeros(3)\nnp.add(b, 1, out=b)\nprint(b)\n")
    np.random.seed(0)
    assert result.out == (f"{np.arange(6).reshape(2, 3)}\n{np.arange(6).reshape(2, 3).T!r} 15 int64\n"
                          f"{np.random.rand(2)}\n[1. 1. 1.]\n")


def test_numpy_s_errors_are_the_script_s(run):
    result = run("import numpy as np\nnp.linspace(0, 1, -1)\n")
    assert result.code == 1
    assert result.headline == "ValueError: Number of samples, -1, must be non-negative."
    result = run("import numpy as np\nnp.ones(3).sum(axis=5)\n")
    assert result.headline == "numpy.exceptions.AxisError: axis 5 is out of bounds for array of dimension 1"
