"""No walk from a script's classes, functions, exceptions or the standard-library subsets reaches
Python's own objects: each is refused with Python's kind of error, at the place it happens."""

from __future__ import annotations

import textwrap

import pytest

CLASS = "class A:\n    def m(self):\n        pass\n"

WALKS = [
    # (code after CLASS, error line, where: "line:column")
    ("print(type(A()).__mro__)", "AttributeError: type object 'A' has no attribute '__mro__'", "4:7"),
    ("print(A().__class__)", "AttributeError: 'A' object has no attribute '__class__'", "4:7"),
    ("print(A().__dict__)", "AttributeError: 'A' object has no attribute '__dict__'", "4:7"),
    ("print(A.__dict__)", "AttributeError: type object 'A' has no attribute '__dict__'", "4:7"),
    ("print(A.__subclasses__())", "AttributeError: type object 'A' has no attribute '__subclasses__'", "4:7"),
    ("print(A.__bases__)", "AttributeError: type object 'A' has no attribute '__bases__'", "4:7"),
    ("print(A.__module__)", "AttributeError: type object 'A' has no attribute '__module__'", "4:7"),
    ("print(A.mro())", "AttributeError: type object 'A' has no attribute 'mro'", "4:7"),
    ("print(A.__new__)", "AttributeError: type object 'A' has no attribute '__new__'", "4:7"),
    ("print(object.__subclasses__)", "AttributeError: type object 'object' has no attribute '__subclasses__'",
     "4:7"),
    ("print(A().m.__func__)", "AttributeError: 'method' object has no attribute '__func__'", "4:7"),
    ("print(A().m.__self__)", "AttributeError: 'method' object has no attribute '__self__'", "4:7"),
    ("print(A.m.__globals__)", "AttributeError: 'function' object has no attribute '__globals__'", "4:7"),
    ("print(A.m.__code__)", "AttributeError: 'function' object has no attribute '__code__'", "4:7"),
    ("print(A().__reduce_ex__(2))", "AttributeError: 'A' object has no attribute '__reduce_ex__'", "4:7"),
    ("print(vars(A()))", "TypeError: vars() argument must have __dict__ attribute", "4:7"),
    ("print(getattr(A(), '__class__'))", "AttributeError: 'A' object has no attribute '__class__'", "4:7"),
    ("print(getattr(A, 'mro'))", "AttributeError: type object 'A' has no attribute 'mro'", "4:7"),
    ("print(super(type, A))", "TypeError: super() argument 1 must be a type, not type", "4:7"),
    ("print('{0.__class__}'.format(A()))", "AttributeError: 'A' object has no attribute '__class__'", "4:7"),
    ("a = A()\nprint(f'{a.__class__}')", "AttributeError: 'A' object has no attribute '__class__'", "5:10"),
    ("print(staticmethod(len).__func__)", "AttributeError: 'staticmethod' object has no attribute '__func__'",
     "4:7"),
    ("A.__init__ = print", "AttributeError: attribute '__init__' of 'type' objects is not writable", "4:1"),
    ("setattr(A, '__call__', print)", "AttributeError: attribute '__call__' of 'type' objects is not writable",
     "4:1"),
    ("type('X', (), {})", "TypeError: type() takes 1 argument in gradcli scripts", "4:1"),
    ("print(type(A).__subclasses__)", "AttributeError: 'type' object has no attribute '__subclasses__'", "4:7"),
]

WALKS_FROM_OTHER_PLACES = [
    ("class B:\n    def __init__(self):\n        print(super().__init__.__globals__)\nB()\n",
     "AttributeError: 'method-wrapper' object has no attribute '__globals__'", "3:15"),
    ("class B:\n    def __init__(self):\n        print(super().__thisclass__)\nB()\n",
     "AttributeError: 'super' object has no attribute '__thisclass__'", "3:15"),
    ("class B:\n    def __init__(self):\n        print(super().__self__)\nB()\n",
     "AttributeError: 'super' object has no attribute '__self__'", "3:15"),
    ("class B:\n    @property\n    def p(self):\n        return 1\nprint(B.p.fget.__globals__)\n",
     "AttributeError: 'function' object has no attribute '__globals__'", "5:7"),
    ("class B:\n    @classmethod\n    def c(cls):\n        pass\nprint(B.c.__func__)\n",
     "AttributeError: 'method' object has no attribute '__func__'", "5:7"),
    ("try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__)\n",
     "AttributeError: 'ZeroDivisionError' object has no attribute '__traceback__'", "4:11"),
    ("try:\n    1 / 0\nexcept Exception as e:\n    print(e.with_traceback)\n",
     "AttributeError: 'ZeroDivisionError' object has no attribute 'with_traceback'", "4:11"),
    ("class E(Exception):\n    pass\ntry:\n    raise E()\nexcept E as e:\n    print(e._gradcli_span)\n",
     "AttributeError: 'E' object has no attribute '_gradcli_span'", "6:11"),
    ("class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, kind, value, tb):\n"
     "        print(tb.tb_frame)\nwith C():\n    1 / 0\n",
     "AttributeError: 'traceback' object has no attribute 'tb_frame'", "5:15"),
    ("class F(Function):\n    pass\nprint(F._private_node)\n",
     "AttributeError: type object 'F' has no attribute '_private_node'", "3:7"),
    ("class F(Function):\n    pass\nF._private_node = 1\n",
     "AttributeError: attribute '_private_node' of 'type' objects is not writable", "3:1"),
    ("import functools\nprint(functools.partial(print, 1).func.__self__)\n",
     "AttributeError: 'function' object has no attribute '__self__'", "2:7"),
    ("import collections\nprint(collections.Counter('ab').most_common.__globals__)\n",
     "AttributeError: 'method' object has no attribute '__globals__'", "2:7"),
    ("import collections\nP = collections.namedtuple('P', 'x y')\nprint(P._make.__globals__)\n",
     "AttributeError: 'method' object has no attribute '__globals__'", "3:7"),
    ("import random\nprint(random.seed.__self__)\n",
     "AttributeError: 'method' object has no attribute '__self__'", "2:7"),
    ("import itertools\nprint(itertools.count()._iterator)\n",
     "AttributeError: 'count' object has no attribute '_iterator'", "2:7"),
    ("import random\nrandom.Random()\n", "NotImplementedError: gradcli does not support random.Random yet", "2:1"),
]

DEFINITIONS = [
    ("class B:\n    def __init_subclass__(cls):\n        pass\n", "__init_subclass__", "2:9"),
    ("class B:\n    def __class_getitem__(cls, item):\n        pass\n", "__class_getitem__", "2:9"),
    ("class B:\n    def __set_name__(self, owner, name):\n        pass\n", "__set_name__", "2:9"),
    ("class B:\n    def __getattr__(self, name):\n        pass\n", "__getattr__", "2:9"),
    ("class B:\n    def __getattribute__(self, name):\n        pass\n", "__getattribute__", "2:9"),
    ("class B:\n    __module__ = 'os'\n", "__module__", "2:5"),
    ("class B:\n    if True:\n        __dict__ = {}\n", "__dict__", "3:9"),
]


def _location(result) -> str:
    first = result.err.splitlines()[0]
    return ":".join(first.split(":")[1:3])


@pytest.mark.parametrize("code, message, where", WALKS)
def test_walks_from_a_class_are_refused(run, code, message, where):
    result = run(CLASS + code + "\n")
    assert result.code == 1, result.out
    assert (result.headline, _location(result)) == (message, where)
    assert "Traceback" not in result.err


@pytest.mark.parametrize("code, message, where", WALKS_FROM_OTHER_PLACES)
def test_walks_from_super_properties_exceptions_and_modules_are_refused(run, code, message, where):
    result = run(code)
    assert result.code == 1, result.out
    assert (result.headline, _location(result)) == (message, where)


@pytest.mark.parametrize("code, name, where", DEFINITIONS)
def test_defining_other_dunders_is_a_syntax_error_naming_them(run, code, name, where):
    result = run(code)
    assert result.headline == f"SyntaxError: gradcli does not support defining '{name}' in a class"
    assert _location(result) == where
    assert "hint: a class may define these special methods: __add__" in result.err


def test_what_a_script_may_read_of_its_own(run):
    result = run(textwrap.dedent("""
        class A:
            '''The doc.'''
            def m(self):
                'm doc'
                return 1
        a = A()
        print(A.__name__, A.__doc__, a.__doc__, A.m.__name__, a.m.__doc__, type(a).__name__)
        print(A.__init__ is object.__init__, A.__repr__(a) == repr(a), a.__repr__() == repr(a))
        print(int.__name__, type(1).__name__)
    """))
    assert result.out == "A The doc. The doc. m m doc A\nTrue True True\nint int\n", result.err
