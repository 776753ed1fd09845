"""Format-string attribute access: ``'{0.__class__}'.format(x)`` and its chains (``__init__``,
``__globals__``, ``__subclasses__``), keyword and indexed fields, nested format specs
(``'{0:{1.__class__}}'``), ``str.format`` unbound or fetched with ``getattr``, ``format_map``
(simpleeval's tests), f-strings with conversions and ``=``, ``%``-formatting, and ``format()``.

Each attempt runs through Session.run_source with the real engine (tests/lang/attacks.py) and must
end in a clean, located refusal: the error a script gets, word for word, and nothing written,
nothing read from the environment."""

from __future__ import annotations

import pytest

from attacks import assert_refused, sandboxed  # noqa: F401 - sandboxed is a fixture

ATTACKS = [
    pytest.param("'{0.__class__}'.format(1)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_class'),
    pytest.param("'{s.__class__}'.format(s='things')",
                 "AttributeError: 'str' object has no attribute '__class__'", id='format_keyword_class'),
    pytest.param("f = lambda: 0\n'{0.__globals__}'.format(f)",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='format_globals'),
    pytest.param("'{0.__init__.__globals__}'.format([])",
                 "AttributeError: 'list' object has no attribute '__init__'", id='format_init_globals'),
    pytest.param("'{0.__class__.__base__.__subclasses__}'.format(())",
                 "AttributeError: 'tuple' object has no attribute '__class__'", id='format_subclasses_chain'),
    pytest.param("'{0[0].__class__}'.format([1])",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_index_then_dunder'),
    pytest.param("x = tensor([1.])\n'{0._data}'.format(x)",
                 "AttributeError: 'Tensor' object has no attribute '_data'", id='format_tensor_private'),
    pytest.param("x = tensor([1.])\n'{0.__dict__}'.format(x)",
                 "AttributeError: 'Tensor' object has no attribute '__dict__'", id='format_tensor_dict'),
    pytest.param("x = tensor([1.], grad)\n'{0.grad_fn.__class__}'.format(x * 2)",
                 "AttributeError: 'MulBackward0' object has no attribute '__class__'", id='format_grad_fn_class'),
    pytest.param("x = tensor([1.])\n'{0.sum.__self__}'.format(x)",
                 "AttributeError: 'method' object has no attribute '__self__'", id='format_method_self'),
    pytest.param("'{0.__globals__}'.format(print)",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='format_print_globals'),
    pytest.param("'{0:{1.__class__}}'.format(1, 2)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_nested_spec_field'),
    pytest.param("'{0:>{1.__class__.__name__}}'.format(1, 2)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_nested_spec_deep'),
    pytest.param("str.format('{0.__class__}', 1)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_unbound_str_format'),
    pytest.param("getattr(str, 'format')('{0.__class__}', 1)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_unbound_via_getattr'),
    pytest.param("getattr('{0.__class__}', 'format')(1)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_bound_via_getattr'),
    pytest.param("f = '{0.__class__}'.format\nf(1)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_method_stored'),
    pytest.param("'{a.__class__}'.format_map({'a': 1})",
                 "AttributeError: 'str' object has no attribute 'format_map'", id='format_map'),
    pytest.param("import functools\n'{0.func.__globals__}'.format(functools.partial(print))",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='format_partial'),
    pytest.param("class B:\n    @property\n    def p(self):\n        return 1\n'{0.p.fget.__globals__}'.format(B)",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='format_property_fget'),
    pytest.param("'{0.gi_frame}'.format(a for a in [1])",
                 "AttributeError: 'generator' object has no attribute 'gi_frame'", id='format_generator_frame'),
    pytest.param("try:\n    1 / 0\nexcept Exception as e:\n    '{0.__traceback__}'.format(e)",
                 "AttributeError: 'ZeroDivisionError' object has no attribute", id='format_exception_traceback'),
    pytest.param("import torch\n'{0.__dict__}'.format(torch)",
                 "AttributeError: module 'torch' has no attribute '__dict__'", id='format_module_dict'),
    pytest.param("import math\n'{0._members}'.format(math)",
                 "AttributeError: module 'math' has no attribute '_members'", id='format_module_private'),
    pytest.param("'{0.format.__self__}'.format('x')",
                 "AttributeError: 'builtin_function_or_method' object has no", id='format_self_attribute'),
    pytest.param("for i in range(300):\n    s = '{0.__class__}' if i == 299 else '{0}'\n    s.format(i)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='format_in_loop_fused'),
    pytest.param("x = 1\nf'{x.__class__}'",
                 "AttributeError: 'int' object has no attribute '__class__'", id='fstring_class'),
    pytest.param("f = lambda: 0\nf'{f.__globals__}'",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='fstring_globals'),
    pytest.param("x = 1\nf'{x:{x.__class__}}'",
                 "AttributeError: 'int' object has no attribute '__class__'", id='fstring_spec_nested'),
    pytest.param("x = 1\nf'{x.__class__!r}'",
                 "AttributeError: 'int' object has no attribute '__class__'", id='fstring_conversion'),
    pytest.param("x = 1\nf'{x.__class__=}'",
                 "AttributeError: 'int' object has no attribute '__class__'", id='fstring_self_documenting'),
    pytest.param("f'{print.__self__}'",
                 "AttributeError: 'function' object has no attribute '__self__'", id='fstring_in_method_call'),
    pytest.param("'%s' % (1).__class__",
                 "AttributeError: 'int' object has no attribute '__class__'", id='percent_format'),
    pytest.param("'%(a)s' % {'a': print.__globals__}",
                 "AttributeError: 'function' object has no attribute '__globals__'", id='percent_mapping'),
    pytest.param("format(1, '{0.__class__}')",
                 "ValueError: Invalid format specifier '{0.__class__}' for object of", id='format_builtin_spec'),
    pytest.param('format(print.__globals__)',
                 "AttributeError: 'function' object has no attribute '__globals__'", id='format_builtin_object'),
    pytest.param('import string',
                 "ModuleNotFoundError: No module named 'string'", id='format_string_module'),
    pytest.param("x = tensor(1.)\nf'{x:{x._data}}'",
                 "AttributeError: 'Tensor' object has no attribute '_data'", id='format_tensor_spec_attr'),
]


@pytest.mark.parametrize("code, expected", ATTACKS)
def test_format_attack_is_refused(sandboxed, code, expected):
    assert_refused(code, expected)
