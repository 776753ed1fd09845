"""``type(v)``, calling a class and reading through one reach only documented classes and constructors
(gradcli.lang.script_types): the classes a script has by name are themselves, every other class a
stand-in that prints as Python or PyTorch prints it and cannot be called."""

from __future__ import annotations

import textwrap

from attacks import attempt


def _run(code: str):
    return attempt(textwrap.dedent(code))


def test_the_objects_the_issue_found_are_documented_now():
    result = _run("""
        import torch
        x = tensor([1., 2.])
        print(type(x), type(x).shape, type(x)._base)
        print(type(''.format), type(torch), type(x.add), type(list[int]), list[int])
        @type
        def f():
            pass
        print(f)
        for attempt in [lambda: type(torch)('os', {}, frozenset()), lambda: f(1), lambda: type(x.add)(print, 'bound')(),
                        lambda: type(list[int])(list, int)]:
            try:
                attempt()
            except TypeError as error:
                print(error)
    """)
    assert result.out.splitlines() == [
        "<class 'torch.Tensor'> <attribute 'shape' of 'torch._C.TensorBase' objects> "
        "<attribute '_base' of 'torch._C.TensorBase' objects>",
        "<class 'builtin_function_or_method'> <class 'module'> <class 'builtin_function_or_method'> "
        "<class 'types.GenericAlias'> list[int]",
        "<class 'function'>",
        "cannot create 'module' instances",
        "cannot create 'function' instances",
        "cannot create 'builtin_function_or_method' instances",
        "cannot create 'types.GenericAlias' instances",
    ], result.err


def test_classes_a_script_has_by_name_are_themselves_and_construct():
    result = _run("""
        import torch
        import torch.nn as nn
        import collections
        x = tensor([1., 2.])
        P = collections.namedtuple('P', 'a b')
        class A:
            pass
        try:
            1 / 0
        except ZeroDivisionError as e:
            error = e
        print(type(x) is torch.Tensor, type(x.shape) is torch.Size, type(x.dtype) is torch.dtype,
              type(double) is torch.dtype, type(nn.Linear(1, 1)) is nn.Linear, type(P(1, 2)) is P, type(A()) is A,
              type(nn.Linear(1, 1).state_dict()) is collections.OrderedDict, type(error) is ZeroDivisionError)
        print(type(x)([3.]), type(x.shape)((2, 3)), type(None)(), type(range(3))(2), type(P(1, 2))(3, 4),
              type((-1) ** 0.5)(2), type(error)('again'))
        try:
            tensor([1.]).view(3)
        except RuntimeError as e:
            print(type(e))
    """)
    assert result.out.splitlines() == [
        "True True True True True True True True True",
        "tensor([3.]) torch.Size([2, 3]) None range(0, 2) P(a=3, b=4) (2+0j) again",
        "<class 'RuntimeError'>",
    ], result.err


def test_a_stand_in_behaves_as_a_class_that_cannot_be_called():
    result = _run("""
        import torch
        f, g = lambda: 0, lambda: 1
        x = tensor([1.], grad)
        node = (x * 2).grad_fn
        T = type(node)
        print(type(f) is type(g), type(f).__name__, T.__name__, isinstance(node, T), isinstance(f, type(g)),
              issubclass(type(f), object), type(T), type(type(f)) is type, isinstance(T, type))
        print(T.name(node), T.next_functions, dir(T))
        help(T)
        torch.dtype()
    """)
    assert result.out.splitlines() == [
        "True function MulBackward0 True True True <class 'type'> True True",
        "MulBackward0 <attribute 'next_functions' of 'MulBackward0' objects> "
        "['metadata', 'name', 'next_functions', 'register_hook', 'register_prehook']",
        "Help on class MulBackward0 in module builtins:",
        "",
        "ATTRIBUTES AND METHODS",
        "    metadata, name, next_functions, register_hook, register_prehook",
    ], result.err
    assert result.headline == "TypeError: cannot create 'torch.dtype' instances"


def test_classes_that_are_not_the_script_s_cannot_be_changed():
    for code, message in [
            ("int.x = 1", "TypeError: cannot set 'x' attribute of immutable type 'int'"),
            ("type(len).x = 1", "TypeError: cannot set 'x' attribute of immutable type 'builtin_function_or_method'"),
            ("import torch\ndel torch.Tensor.add", "TypeError: cannot set 'add' attribute of immutable type 'Tensor'"),
            ("class A(type(lambda: 0)):\n    pass", "TypeError: type 'function' is not an acceptable base type")]:
        result = attempt(code)
        assert result.headline == message, result.err


def test_engine_state_is_not_the_script_s_but_its_own_private_names_are():
    result = _run("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self._calls = 0
                self.fc = nn.Linear(1, 1)
            def forward(self, a):
                self._calls += 1
                return self.fc(a)
        nets = [Net(), Net()]
        for step in range(300):           # (a hot loop: fusion writes and reads it directly)
            for net in nets:
                net(ones(1))
                net._seen = step
        print(nets[1]._calls, nets[0]._seen, hasattr(nets[0], '_parameters'), hasattr(nets[0].fc, '_modules'))
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx._scale = 2
                ctx.k = 3
                print(ctx._scale * ctx.k, hasattr(ctx, '_saved'), hasattr(ctx, 'rule'))
                return a * 2
            @staticmethod
            def backward(ctx, g):
                return g * ctx._scale
        x = tensor([1.], grad)
        F.apply(x).sum().backward()
        print(x.grad)
        nets[0]._parameters = {}
    """)
    assert result.out.splitlines() == ["300 299 False False", "6 False False", "tensor([2.])"], result.err
    assert result.headline == "AttributeError: attribute '_parameters' of 'Net' objects is not writable"


def test_a_class_s_name_is_python_s_and_pytorch_s_short_name():
    result = _run("""
        import torch
        import numpy as np
        x = tensor([1.], grad)
        print([t.__name__ for t in [torch.Size, torch.dtype, torch.Generator, type(torch.max(x, 0)), type(x.grad_fn),
                                    torch.device, type(x.layout), int, type(np.add), type(list[int]), type(len)]])
    """)
    assert result.out == ("['Size', 'dtype', 'Generator', 'max', 'NoneType', 'device', 'layout', 'int', 'ufunc', "
                          "'GenericAlias', 'builtin_function_or_method']\n"), result.err


def test_help_on_stand_ins_names_no_internals():
    result = _run("""
        import torch
        help(torch.dtype)
        help(type(''.format))
        help(type(torch))
    """)
    assert result.out.splitlines() == [
        "Help on class dtype in module torch:",
        "",
        "class dtype",
        "    PyTorch's torch.dtype, computed by gradcli (CPU, NumPy).",
        "    PyTorch's documentation: https://pytorch.org/docs/stable/generated/torch.dtype.html",
        "Help on class builtin_function_or_method in module builtins:",
        "Help on class module in module builtins:",
    ], result.err


def test_an_exception_s_class_is_itself_so_except_type_e_works():
    result = _run("""
        import numpy as np
        try:
            np.sum(np.ones(2), axis=5)
        except ValueError as e:
            try:
                raise type(e)('again')
            except type(e) as again:
                print(type(again), again)
    """)
    assert result.out == "<class 'numpy.exceptions.AxisError'> again\n", result.err
