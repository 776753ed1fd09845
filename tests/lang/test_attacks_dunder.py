"""Dunder walks: the pyjail classic ``().__class__.__bases__[0].__subclasses__()`` and its
variants from ``str``, ``bool`` and ``None``; simpleeval's ``__globals__`` / ``mro`` /
``func_globals`` breakouts; RestrictedPython's guarded attribute access (no private ``_names``
of the runtime's objects); the same through ``getattr``/``setattr``/``delattr``/``vars``/``super()``,
on tensors, nodes, modules, functions and classes, and inside a hot loop that fusion rebuilds as
Python code.  Writing the private state the engine keeps on a module or a ctx is refused too.

Each attempt runs through Session.run_source with the real engine (tests/lang/attacks.py) and must
end in a clean, located refusal: the error a script gets, word for word, and nothing written,
nothing read from the environment."""

from __future__ import annotations

import pytest

from attacks import assert_refused, sandboxed  # noqa: F401 - sandboxed is a fixture

ATTACKS = [
    pytest.param('().__class__.__bases__[0].__subclasses__()',
                 "AttributeError: 'tuple' object has no attribute '__class__'", id='tuple_bases_subclasses'),
    pytest.param("''.__class__.__mro__[1].__subclasses__()",
                 "AttributeError: 'str' object has no attribute '__class__'", id='str_mro_subclasses'),
    pytest.param('[].__class__.__base__',
                 "AttributeError: 'list' object has no attribute '__class__'", id='list_base'),
    pytest.param('{}.__class__',
                 "AttributeError: 'dict' object has no attribute '__class__'", id='dict_class'),
    pytest.param("True.__class__.__class__.__base__.__subclasses__()[-1].__init__.__globals__['sys']",
                 "AttributeError: 'bool' object has no attribute '__class__'", id='true_class_class'),
    pytest.param('(1).__class__',
                 "AttributeError: 'int' object has no attribute '__class__'", id='int_class'),
    pytest.param('(1.5).__class__.__subclasses__()',
                 "AttributeError: 'float' object has no attribute '__class__'", id='float_class'),
    pytest.param('None.__class__',
                 "AttributeError: 'NoneType' object has no attribute '__class__'", id='none_class'),
    pytest.param('....__class__',
                 "AttributeError: 'ellipsis' object has no attribute '__class__'", id='ellipsis_class'),
    pytest.param('x = tensor([1.])\nx.__class__',
                 "AttributeError: 'Tensor' object has no attribute '__class__'", id='tensor_class'),
    pytest.param('x = tensor([1.])\nx.__dict__',
                 "AttributeError: 'Tensor' object has no attribute '__dict__'", id='tensor_dict'),
    pytest.param('x = tensor([1.])\nx._data',
                 "AttributeError: 'Tensor' object has no attribute '_data'", id='tensor_raw_data'),
    pytest.param('x = tensor([1.])\nx._vc',
                 "AttributeError: 'Tensor' object has no attribute '_vc'", id='tensor_version_counter'),
    pytest.param('x = tensor([1.], grad)\n(x * 2)._grad_fn',
                 "AttributeError: 'Tensor' object has no attribute '_grad_fn'", id='tensor_private_grad_fn'),
    pytest.param('x = tensor([1.])\nx.__reduce_ex__(2)',
                 "AttributeError: 'Tensor' object has no attribute '__reduce_ex__'", id='tensor_reduce_ex'),
    pytest.param("x = tensor([1.])\nx.__getattribute__('_data')",
                 "AttributeError: 'Tensor' object has no attribute '__getattribute__'", id='tensor_getattribute'),
    pytest.param("x = tensor([1.])\nx.__setattr__('_data', 1)",
                 "AttributeError: 'Tensor' object has no attribute '__setattr__'", id='tensor_setattr_dunder'),
    pytest.param('x = tensor([1.])\nx.__array_interface__',
                 "AttributeError: 'Tensor' object has no attribute", id='tensor_array_interface'),
    pytest.param('x = tensor([1.])\nx.__torch_function__',
                 "AttributeError: 'Tensor' object has no attribute '__torch_function__'", id='tensor_torch_function'),
    pytest.param('x = tensor([1.], grad)\n(x * 2).grad_fn.__class__',
                 "AttributeError: 'MulBackward0' object has no attribute '__class__'", id='grad_fn_class'),
    pytest.param('x = tensor([1.], grad)\n(x * 2).grad_fn._saved',
                 "AttributeError: 'MulBackward0' object has no attribute '_saved'", id='grad_fn_private'),
    pytest.param('print.__globals__',
                 "AttributeError: 'function' object has no attribute '__globals__'", id='print_globals'),
    pytest.param('print.__closure__',
                 "AttributeError: 'function' object has no attribute '__closure__'", id='print_closure'),
    pytest.param('len.__self__',
                 "AttributeError: 'builtin_function_or_method' object has no", id='len_self_is_builtins'),
    pytest.param("abs.__globals__['__builtins__']",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='abs_wrapper_globals'),
    pytest.param('[].append.__self__',
                 "AttributeError: 'builtin_function_or_method' object has no attribute '__self__'", id='append_self'),
    pytest.param('x = tensor([1.])\nx.sum.__func__.__globals__',
                 "AttributeError: 'method' object has no attribute '__func__'", id='tensor_method_func'),
    pytest.param('x = tensor([1.])\nx.sum.__self__',
                 "AttributeError: 'method' object has no attribute '__self__'", id='tensor_method_self'),
    pytest.param('import torch\ntorch.ones.__globals__',
                 "AttributeError: 'function' object has no attribute '__globals__'", id='torch_ones_globals'),
    pytest.param('import torch\ntorch.ones.__wrapped__',
                 "AttributeError: 'function' object has no attribute '__wrapped__'", id='torch_ones_wrapped'),
    pytest.param('import torch\ntorch.__dict__',
                 "AttributeError: module 'torch' has no attribute '__dict__'", id='torch_dict'),
    pytest.param('import torch\ntorch.__builtins__',
                 "AttributeError: module 'torch' has no attribute '__builtins__'", id='torch_builtins'),
    pytest.param('import torch\ntorch.__spec__',
                 "AttributeError: module 'torch' has no attribute '__spec__'", id='torch_spec'),
    pytest.param('import torch\ntorch.__file__',
                 "AttributeError: module 'torch' has no attribute '__file__'", id='torch_file'),
    pytest.param('import math\nmath.__loader__',
                 "AttributeError: module 'math' has no attribute '__loader__'", id='math_loader'),
    pytest.param('import math\nmath.__dict__',
                 "AttributeError: module 'math' has no attribute '__dict__'", id='math_dict'),
    pytest.param('import torch.nn.functional as F\nF.__package__',
                 "AttributeError: module 'torch.nn.functional' has no attribute", id='functional_package'),
    pytest.param('f = lambda: 0\nf.__globals__',
                 "AttributeError: 'function' object has no attribute '__globals__'", id='lambda_globals'),
    pytest.param('f = lambda: 0\nf.__code__',
                 "AttributeError: 'function' object has no attribute '__code__'", id='lambda_code'),
    pytest.param('f = lambda a=1: a\nf.__defaults__',
                 "AttributeError: 'function' object has no attribute '__defaults__'", id='lambda_defaults_dunder'),
    pytest.param('def f():\n    y = 1\n    return lambda: y\nf().__closure__',
                 "AttributeError: 'function' object has no attribute '__closure__'", id='def_closure'),
    pytest.param('def f():\n    pass\nf.body',
                 "AttributeError: 'function' object has no attribute 'body'", id='def_private_body'),
    pytest.param('def f():\n    pass\nf.closure',
                 "AttributeError: 'function' object has no attribute 'closure'", id='def_private_closure'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA().m.__func__',
                 "AttributeError: 'method' object has no attribute '__func__'", id='bound_method_func'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA().m.__self__',
                 "AttributeError: 'method' object has no attribute '__self__'", id='bound_method_self'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.__mro__',
                 "AttributeError: type object 'A' has no attribute '__mro__'", id='class_mro'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.mro()',
                 "AttributeError: type object 'A' has no attribute 'mro'", id='class_mro_method'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.__subclasses__()',
                 "AttributeError: type object 'A' has no attribute '__subclasses__'", id='class_subclasses'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.__bases__',
                 "AttributeError: type object 'A' has no attribute '__bases__'", id='class_bases'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.__dict__',
                 "AttributeError: type object 'A' has no attribute '__dict__'", id='class_dict'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.__module__',
                 "AttributeError: type object 'A' has no attribute '__module__'", id='class_module'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA().__class__',
                 "AttributeError: 'A' object has no attribute '__class__'", id='instance_class'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA().__dict__',
                 "AttributeError: 'A' object has no attribute '__dict__'", id='instance_dict'),
    pytest.param('object.__subclasses__()',
                 "AttributeError: type object 'object' has no attribute '__subclasses__'", id='object_subclasses'),
    pytest.param("object.__getattribute__(1, '__class__')",
                 "AttributeError: type object 'object' has no attribute", id='object_getattribute'),
    pytest.param("x = tensor([1.])\nobject.__setattr__(x, '_data', 0)",
                 "AttributeError: type object 'object' has no attribute '__setattr__'", id='object_setattr'),
    pytest.param('class A:\n    def m(self):\n        return 1\nobject.__new__(A)',
                 "AttributeError: type object 'object' has no attribute '__new__'", id='object_new'),
    pytest.param('object.__reduce_ex__(1, 2)',
                 "AttributeError: type object 'object' has no attribute '__reduce_ex__'", id='object_reduce'),
    pytest.param('object.__init_subclass__',
                 "AttributeError: type object 'object' has no attribute", id='object_init_subclass'),
    pytest.param('object.__init__.__call__',
                 "AttributeError: 'wrapper_descriptor' object has no attribute '__call__'", id='wrapper_call_dunder'),
    pytest.param("getattr(1, '__class__')",
                 "AttributeError: 'int' object has no attribute '__class__'", id='getattr_class'),
    pytest.param("getattr(getattr(print, '__globals__'), 'get')",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='getattr_chain'),
    pytest.param("print(hasattr(1, '__class__'))\n(1).__class__",
                 "AttributeError: 'int' object has no attribute '__class__'", id='hasattr_is_false_then_use'),
    pytest.param("class A:\n    def m(self):\n        return 1\na = A()\nsetattr(a, '__class__', int)",
                 "AttributeError: 'A' object has no attribute '__class__'", id='setattr_dunder_class'),
    pytest.param("x = tensor([1.])\nsetattr(x, '_data', None)",
                 "AttributeError: 'Tensor' object has no attribute '_data'", id='setattr_tensor_data_private'),
    pytest.param("x = tensor([1.])\ndelattr(x, '_data')",
                 "AttributeError: 'Tensor' object has no attribute '_data'", id='delattr_tensor_private'),
    pytest.param('x = tensor([1.])\nvars(x)',
                 'TypeError: vars() argument must have __dict__ attribute', id='vars_tensor'),
    pytest.param('import torch\nvars(torch)',
                 'TypeError: vars() argument must have __dict__ attribute', id='vars_module'),
    pytest.param('class B:\n    def f(self):\n        return super().__thisclass__\nB().f()',
                 "AttributeError: 'super' object has no attribute '__thisclass__'", id='super_thisclass'),
    pytest.param('class B:\n    def f(self):\n        return super().__self_class__\nB().f()',
                 "AttributeError: 'super' object has no attribute '__self_class__'", id='super_self_class'),
    pytest.param('super(int, 1).__getattribute__',
                 "AttributeError: 'super' object has no attribute '__getattribute__'", id='super_getattribute'),
    pytest.param('import torch.nn as nn\nnn.Linear(1, 1)._call_impl',
                 "AttributeError: 'Linear' object has no attribute '_call_impl'", id='nn_module_private_call'),
    pytest.param('import torch\n'
                 'class F(torch.autograd.Function):\n'
                 '    @staticmethod\n'
                 '    def forward(ctx, a):\n'
                 '        ctx.rule\n'
                 '        return a\n'
                 'F.apply(tensor([1.], grad))',
                 "AttributeError: 'FBackward' object has no attribute 'rule'", id='ctx_internal_rule'),
    pytest.param('import torch\nclass F(torch.autograd.Function):\n    pass\nF._backward_cls',
                 "AttributeError: type object 'F' has no attribute", id='function_private_backward_cls'),
    pytest.param('class A:\n    def m(self):\n        return 1\nA.__call__ = print',
                 "AttributeError: attribute '__call__' of 'type' objects is not writable", id='set_class_dunder'),
    pytest.param('import torch\ntorch.Tensor.shape.fget',
                 "AttributeError: 'getset_descriptor' object has no attribute 'fget'", id='property_of_engine_fget'),
    pytest.param('import torch\ntorch.Tensor.requires_grad.fset',
                 "AttributeError: 'getset_descriptor' object has no attribute 'fset'", id='property_of_engine_fset'),
    pytest.param('import torch\ntorch.Tensor.shape.__get__',
                 "AttributeError: 'getset_descriptor' object has no attribute '__get__'", id='attribute_view_get'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e._gradcli_span',
                 "AttributeError: 'ZeroDivisionError' object has no", id='gradcli_private_on_exception'),
    pytest.param('import torch.nn as nn\nm = nn.Linear(1, 1)\nm._parameters = 5',
                 "AttributeError: attribute '_parameters' of 'Linear' objects", id='module_private_state_write'),
    pytest.param('import torch.nn as nn\nm = nn.Linear(1, 1)\ndel m._modules',
                 "AttributeError: attribute '_modules' of 'Linear' objects is", id='module_private_state_delete'),
    pytest.param('import torch.nn as nn\nm = nn.Linear(1, 1)\nm._call_impl = print',
                 "AttributeError: attribute '_call_impl' of 'Linear' objects", id='module_private_method_shadow'),
    pytest.param('import torch.nn as nn\n'
                 'class Net(nn.Module):\n'
                 '    def __init__(self):\n'
                 '        super().__init__()\n'
                 '        self._buffers = None\n'
                 'Net()',
                 "AttributeError: attribute '_buffers' of 'Net' objects is", id='subclass_module_private_state'),
    pytest.param('import torch\n'
                 'class F(torch.autograd.Function):\n'
                 '    @staticmethod\n'
                 '    def forward(ctx, a):\n'
                 '        ctx._saved = 5\n'
                 '        return a\n'
                 'F.apply(tensor([1.], grad))',
                 "AttributeError: attribute '_saved' of 'FBackward' objects is", id='ctx_private_state_write'),
    pytest.param('import torch.nn as nn\n'
                 'import torch.optim as optim\n'
                 'o = optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\n'
                 'o._x = 1\n'
                 'o._gradcli_anything',
                 "AttributeError: 'SGD' object has no attribute", id='optimizer_bookkeeping_name'),
    pytest.param('x = tensor([1.])\nfor i in range(300):\n    y = x + 1\n    if i == 299:\n        y.__class__',
                 "AttributeError: 'Tensor' object has no attribute '__class__'", id='dunder_in_loop_fused'),
    pytest.param('x = tensor([1.])\nfor i in range(300):\n    y = x.sum()\n    if i == 299:\n        y._data',
                 "AttributeError: 'Tensor' object has no attribute '_data'", id='private_in_loop_fused'),
]


@pytest.mark.parametrize("code, expected", ATTACKS)
def test_dunder_attack_is_refused(sandboxed, code, expected):
    assert_refused(code, expected)
