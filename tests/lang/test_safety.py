"""A script reaches nothing outside the language: no files, other modules, processes or Python
internals (no dunder attributes, open, eval, exec, getattr, __import__ or globals), no new types,
and only the attributes gradcli lets a script set."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("code, message", [
    ("(1).__class__", "AttributeError: 'int' object has no attribute '__class__'"),
    ("[].__class__.__bases__", "AttributeError: 'list' object has no attribute '__class__'"),
    ("f = lambda: 0\nf.__globals__", "AttributeError: 'function' object has no attribute '__globals__'"),
    ("print.__self__", "AttributeError: 'function' object has no attribute '__self__'"),
    ("t = tensor([1.])\nt.__dict__", "AttributeError: 'Tensor' object has no attribute '__dict__'"),
    ("t = tensor([1.])\nt.no_such_attribute", "AttributeError: 'Tensor' object has no attribute 'no_such_attribute'"),
    ("None.zero_", "AttributeError: 'NoneType' object has no attribute 'zero_'"),
    ("'x'.__len__", "AttributeError: 'str' object has no attribute '__len__'"),
    ("(x for x in []).gi_frame", "AttributeError: 'generator' object has no attribute 'gi_frame'"),
    ("'{0.__class__}'.format(1)", "AttributeError: 'int' object has no attribute '__class__'"),
    ("'{0.__class__.__init__}'.format([])", "AttributeError: 'list' object has no attribute '__class__'"),
    ("str.format('{0.__class__}', 1)", "AttributeError: 'int' object has no attribute '__class__'"),
    ("str.__subclasses__", "AttributeError: type object 'str' has no attribute '__subclasses__'"),
    ("type(1).__subclasses__", "AttributeError: type object 'int' has no attribute '__subclasses__'"),
    ("open('/etc/passwd')", "NameError: name 'open' is not defined"),
    ("eval('1')", "NameError: name 'eval' is not defined"),
    ("exec('x = 1')", "NameError: name 'exec' is not defined"),
    ("getattr(1, '__class__')", "AttributeError: 'int' object has no attribute '__class__'"),
    ("__import__('os')", "NameError: name '__import__' is not defined"),
    ("globals()", "NameError: name 'globals' is not defined"),
    ("import os", "ModuleNotFoundError: No module named 'os'"),
    ("import subprocess", "ModuleNotFoundError: No module named 'subprocess'"),
    ("from os import path", "ModuleNotFoundError: No module named 'os'"),
    ("import torch\ntorch.__loader__", "AttributeError: module 'torch' has no attribute '__loader__'"),
    ("type('X', (), {})", "TypeError: type() takes 1 argument in gradcli scripts"),
    ("t = tensor([1.])\nt.sum = [2]", "AttributeError: 'Tensor' object attribute 'sum' is read-only"),
    ("t = tensor([1.])\nt.values = [2]", "AttributeError: attribute 'values' of 'torch._C.TensorBase' objects is not writable"),
    ("x = [1]\nx.foo = 1", "AttributeError: 'list' object has no attribute 'foo'"),
    ("import math\nmath.pi = 3", "AttributeError: cannot set attributes of module 'math'"),
])
def test_forbidden(run, code, message):
    result = run(code + "\n")
    assert result.code == 1
    assert result.headline == message
    assert "Traceback" not in result.err


def test_metaclass_is_not_handed_out(run):
    result = run("print(type(int), type(type(int)))\nT = type(int)\nprint(T(3))\n")
    assert result.out == "<class 'type'> <class 'type'>\n<class 'int'>\n"


def test_whitelisted_attributes_and_setters_work(run):
    result = run("t = tensor([1., 2.])\nt.requires_grad = True\nprint(t.requires_grad, t.shape)\n"
                 "print('{0.requires_grad} {0.shape}'.format(t))\n")
    assert result.out == "True (2,)\nTrue (2,)\n"


def test_safe_format_still_formats(run):
    result = run("print('{0[0]:>5}|{x:.2f}|{0[1]}'.format([1, 2], x=3.14159), '{}{}'.format(1, 2))\n")
    assert result.out == "    1|3.14|2 12\n"


def test_one_attribute_node_on_instances_types_and_modules(run):
    """The compiled fast path must not leak one type's whitelist to a type object or module."""
    code = ("import torch\n"
            "for o in [tensor([1., 2.]), torch]:\n"
            "    print(o.sum() if o is not torch else o.sum(tensor([3.])))\n"
            "for o in ['ab', str]:\n"
            "    f = o.upper\n"
            "    print(f('xy') if o is str else f())\n"
            "for o in [1, int, 'x']:\n"
            "    o.__class__\n")
    result = run(code)
    assert result.out == "tensor([3.0])\ntensor([3.0])\nAB\nXY\n"
    assert result.headline == "AttributeError: 'int' object has no attribute '__class__'"


@pytest.mark.parametrize("code", ["print(dir(tensor([1.])))", "import torch\nprint(dir(torch))",
                                  "print(dir('x'), dir([]), dir(1), dir(len), dir(print))",
                                  "f = lambda: 0\nprint(dir(f))", "import math\nprint(dir(math))"])
def test_dir_lists_only_what_a_script_can_read(run, code):
    result = run(code + "\n")
    assert result.code == 0, result.err
    assert "__" not in result.out
    assert "gradcli" not in result.out


def test_dir_is_sorted_and_matches_the_whitelist(run):
    result = run("print(dir([]))\nprint(dir())\n")
    assert result.out.splitlines()[0] == str(sorted("append clear copy count extend index insert pop "
                                                   "remove reverse sort".split()))
    assert result.out.splitlines()[1] == "[]"


@pytest.mark.parametrize("target", ["tensor", "tensor([1.])", "print", "len", "torch", "torch.nn.functional",
                                    "lambda x: x", "grad", "1", "str", "tensor([1.]).sum", "help", "dir"])
def test_help_shows_no_internals(run, target):
    result = run(f"import torch\nhelp({target})\n")
    assert result.code == 0, result.err
    assert result.out.startswith("Help on ")
    assert "gradcli." not in result.out and "0x" not in result.out
    assert "__" not in result.out.replace("__main__", "")
