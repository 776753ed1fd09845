"""Frames, tracebacks, generators and code objects: ``gi_frame.f_back.f_globals`` (the
self-referencing generator of the asteval and pyjail write-ups), ``__traceback__.tb_frame``, the
traceback a ``with`` block's ``__exit__`` receives, ``sys._getframe``/``inspect``/``gc``,
``__code__.replace``, ``compile``, gradcli's own function internals, and callbacks (hooks, sort
keys, ``map``) trying the same from inside engine or builtin code.

Each attempt runs through Session.run_source with the real engine (tests/lang/attacks.py) and must
end in a clean, located refusal: the error a script gets, word for word, and nothing written,
nothing read from the environment."""

from __future__ import annotations

import pytest

from attacks import assert_refused, sandboxed  # noqa: F401 - sandboxed is a fixture

ATTACKS = [
    pytest.param('(a for a in [1]).gi_frame',
                 "AttributeError: 'generator' object has no attribute 'gi_frame'", id='generator_frame'),
    pytest.param('(a for a in [1]).gi_frame.f_back.f_globals',
                 "AttributeError: 'generator' object has no attribute 'gi_frame'", id='generator_frame_back'),
    pytest.param('(a for a in [1]).gi_code',
                 "AttributeError: 'generator' object has no attribute 'gi_code'", id='generator_code'),
    pytest.param('(a for a in [1]).gi_running',
                 "AttributeError: 'generator' object has no attribute 'gi_running'", id='generator_running'),
    pytest.param('g = (a for a in [1])\ng.send(None)',
                 "AttributeError: 'generator' object has no attribute 'send'", id='generator_send'),
    pytest.param('g = (a for a in [1])\ng.throw(ValueError)',
                 "AttributeError: 'generator' object has no attribute 'throw'", id='generator_throw'),
    pytest.param('(a for a in [1]).close()',
                 "AttributeError: 'generator' object has no attribute 'close'", id='generator_close'),
    pytest.param('q = (q.gi_frame.f_back.f_back.f_globals for _ in (1,))\nlist(q)',
                 "AttributeError: 'generator' object has no attribute 'gi_frame'", id='self_referencing_generator'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__',
                 "AttributeError: 'ZeroDivisionError' object has no attribute", id='exception_traceback'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_globals',
                 "AttributeError: 'ZeroDivisionError' object has no attribute", id='exception_traceback_frame'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e.with_traceback(None)',
                 "AttributeError: 'ZeroDivisionError' object has no attribute", id='exception_with_traceback'),
    pytest.param('try:\n'
                 '    try:\n'
                 '        1 / 0\n'
                 '    except Exception:\n'
                 '        [][1]\n'
                 'except Exception as e:\n'
                 '    e.__context__',
                 "AttributeError: 'IndexError' object has no attribute '__context__'", id='exception_context'),
    pytest.param("try:\n    raise ValueError('a') from KeyError('b')\nexcept Exception as e:\n    e.__cause__",
                 "AttributeError: 'ValueError' object has no attribute '__cause__'", id='exception_cause'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e.__class__.__subclasses__()',
                 "AttributeError: 'ZeroDivisionError' object has no attribute '__class__'", id='exception_class'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e.__dict__',
                 "AttributeError: 'ZeroDivisionError' object has no attribute '__dict__'", id='exception_dict'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e.__reduce__()',
                 "AttributeError: 'ZeroDivisionError' object has no attribute '__reduce__'", id='exception_reduce'),
    pytest.param('try:\n    tensor([1.]).view(3)\nexcept RuntimeError as e:\n    e._gradcli_span',
                 "AttributeError: 'RuntimeError' object has no attribute '_gradcli_span'", id='engine_error_private'),
    pytest.param('class C:\n'
                 '    def __enter__(self):\n'
                 '        return self\n'
                 '    def __exit__(self, kind, value, tb):\n'
                 '        tb.tb_frame\n'
                 'with C():\n'
                 '    1 / 0',
                 "AttributeError: 'traceback' object has no attribute 'tb_frame'", id='exit_traceback_frame'),
    pytest.param('class C:\n'
                 '    def __enter__(self):\n'
                 '        return self\n'
                 '    def __exit__(self, kind, value, tb):\n'
                 '        tb.tb_next\n'
                 'with C():\n'
                 '    1 / 0',
                 "AttributeError: 'traceback' object has no attribute 'tb_next'", id='exit_traceback_next'),
    pytest.param('class C:\n'
                 '    def __enter__(self):\n'
                 '        return self\n'
                 '    def __exit__(self, kind, value, tb):\n'
                 '        tb.tb_lasti\n'
                 'with C():\n'
                 '    1 / 0',
                 "AttributeError: 'traceback' object has no attribute 'tb_lasti'", id='exit_traceback_lasti'),
    pytest.param('class C:\n'
                 '    def __enter__(self):\n'
                 '        return self\n'
                 '    def __exit__(self, kind, value, tb):\n'
                 '        kind.__subclasses__()\n'
                 'with C():\n'
                 '    1 / 0',
                 "AttributeError: type object 'ZeroDivisionError' has no attribute", id='exit_kind_subclasses'),
    pytest.param('import sys\nsys._getframe()',
                 "ModuleNotFoundError: No module named 'sys'", id='sys_getframe'),
    pytest.param('import inspect\ninspect.currentframe()',
                 "ModuleNotFoundError: No module named 'inspect'", id='inspect_currentframe'),
    pytest.param('import traceback',
                 "ModuleNotFoundError: No module named 'traceback'", id='traceback_module'),
    pytest.param('import gc\ngc.get_objects()',
                 "ModuleNotFoundError: No module named 'gc'", id='gc_get_objects'),
    pytest.param('f = lambda: 0\nf.__code__.replace(co_consts=())',
                 "AttributeError: 'function' object has no attribute '__code__'", id='code_object_replace'),
    pytest.param('def f():\n    return 1\nf.__code__.co_consts',
                 "AttributeError: 'function' object has no attribute '__code__'", id='code_co_consts'),
    pytest.param('f = lambda: 0\ntype(f.__code__)',
                 "AttributeError: 'function' object has no attribute '__code__'", id='code_type_from_function'),
    pytest.param("compile('1', 'x', 'eval')",
                 'NotImplementedError: gradcli does not support torch.compile yet', id='compile_builtin'),
    pytest.param('def f():\n    pass\nf.body(None)',
                 "AttributeError: 'function' object has no attribute 'body'", id='function_body_call'),
    pytest.param('def f():\n    pass\nf.signature',
                 "AttributeError: 'function' object has no attribute 'signature'", id='function_signature_private'),
    pytest.param('def f():\n    pass\nf.call_depth',
                 "AttributeError: 'function' object has no attribute 'call_depth'", id='function_call_depth'),
    pytest.param('(1).__add__',
                 "AttributeError: 'int' object has no attribute '__add__'", id='method_wrapper_self'),
    pytest.param('x = tensor([1.], grad)\nx.register_hook(lambda g: g.__class__)\nx.sum().backward()',
                 "AttributeError: 'Tensor' object has no attribute '__class__'", id='hook_receives_nothing_more'),
    pytest.param('sorted([2, 1], key=lambda v: v.__class__)',
                 "AttributeError: 'int' object has no attribute '__class__'", id='key_function_frame'),
    pytest.param('list(map(lambda v: v.__class__, [1]))',
                 "AttributeError: 'int' object has no attribute '__class__'", id='map_callback_dunder'),
    pytest.param('def f(n):\n    return f(n + 1)\nf(0)',
                 'RecursionError: maximum recursion depth exceeded', id='recursion_to_frames'),
    pytest.param('try:\n    next(iter([]))\nexcept StopIteration as e:\n    e.value.__class__',
                 "AttributeError: 'NoneType' object has no attribute '__class__'", id='stop_iteration_value_class'),
    pytest.param('breakpoint()',
                 "NameError: name 'breakpoint' is not defined", id='breakpoint'),
]


@pytest.mark.parametrize("code, expected", ATTACKS)
def test_frames_attack_is_refused(sandboxed, code, expected):
    assert_refused(code, expected)
