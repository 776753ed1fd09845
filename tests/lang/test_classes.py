"""Classes as Python 3.11 has them: each snippet prints, with gradcli, what CPython prints."""

from __future__ import annotations

import inspect
import textwrap

import pytest

from cpython import same_as_cpython

SNIPPETS = {
    "attributes_and_methods": """
        class Counter:
            '''Counts.'''
            kind = "counter"
            created = 0
            def __init__(self, start=0, step=1):
                self.value = start
                self.step = step
                Counter.created += 1
            def tick(self, times=1):
                for _ in range(times):
                    self.value += self.step
                return self.value
        a, b = Counter(), Counter(10, step=5)
        print(a.tick(), a.tick(3), b.tick(2), Counter.created, a.created, b.kind)
        a.kind = "mine"
        print(a.kind, b.kind, Counter.kind, Counter.__doc__, a.__doc__, Counter.__name__)
        print(Counter, type(a), type(a) is Counter, isinstance(a, Counter), isinstance(a, object))
        print(repr(a).startswith("<__main__.Counter object at 0x"), a.tick, Counter.tick)
        print(type(a.tick), type(Counter.tick), Counter.tick.__name__, a.tick.__name__)
    """,
    "static_class_property": """
        class T:
            scale = "C"
            def __init__(self, c):
                self._c = c
            @property
            def c(self):
                "the value"
                return self._c
            @c.setter
            def c(self, v):
                if v < -273.15:
                    raise ValueError(f"too cold: {v}")
                self._c = v
            @c.deleter
            def c(self):
                self._c = None
            @staticmethod
            def twice(x):
                return 2 * x
            @classmethod
            def make(cls, v):
                return cls(v)
            @classmethod
            def unit(cls):
                return cls.scale
        class K(T):
            scale = "K"
        t = T(1.5)
        t.c = 20
        print(t.c, T.twice(2), t.twice(3), T.make(4).c, type(K.make(5)), K.unit(), t.unit())
        try:
            t.c = -300
        except ValueError as e:
            print("refused:", e)
        del t.c
        print(t.c, T.c.fget(T(7)), type(T.__dict__) if False else "", T.twice, T.make)
        class RO:
            @property
            def x(self):
                return 1
        try:
            RO().x = 2
        except AttributeError as e:
            print(e)
    """,
    "inheritance_mro_super": """
        class A:
            def who(self):
                return ["A"]
        class B(A):
            def who(self):
                return ["B"] + super().who()
        class C(A):
            def who(self):
                return ["C"] + super(C, self).who()
        class D(B, C):
            def who(self):
                return ["D"] + super().who()
        print(D().who(), isinstance(D(), C), issubclass(D, A), issubclass(A, D))
        class Base:
            def __init__(self, name):
                self.name = name
            def __repr__(self):
                return f"Base({self.name})"
        class Child(Base):
            def __init__(self):
                super().__init__("child")
            def __repr__(self):
                return "Child:" + Base.__repr__(self) + ":" + super().__repr__()
        print(Child(), object.__repr__(Child()).startswith("<__main__.Child"))
        class Plain(object):
            pass
        print(Plain.__name__, type(Plain()).__name__)
    """,
    "special_methods": """
        class V:
            def __init__(self, x, y):
                self.x, self.y = x, y
            def __repr__(self): return f"V({self.x}, {self.y})"
            def __str__(self): return f"<{self.x}, {self.y}>"
            def __add__(self, o):
                return V(self.x + o.x, self.y + o.y) if isinstance(o, V) else V(self.x + o, self.y + o)
            def __radd__(self, o): return self + o
            def __sub__(self, o): return V(self.x - o.x, self.y - o.y)
            def __rsub__(self, o): return V(o - self.x, o - self.y)
            def __mul__(self, k): return V(self.x * k, self.y * k)
            def __rmul__(self, k): return self * k
            def __truediv__(self, k): return V(self.x / k, self.y / k)
            def __rtruediv__(self, k): return V(k / self.x, k / self.y)
            def __matmul__(self, o): return self.x * o.x + self.y * o.y
            def __neg__(self): return V(-self.x, -self.y)
            def __pow__(self, p): return V(self.x ** p, self.y ** p)
            def __rpow__(self, b): return V(b ** self.x, b ** self.y)
            def __eq__(self, o): return isinstance(o, V) and (self.x, self.y) == (o.x, o.y)
            def __lt__(self, o): return self @ self < o @ o
            def __le__(self, o): return self @ self <= o @ o
            def __gt__(self, o): return self @ self > o @ o
            def __ge__(self, o): return self @ self >= o @ o
            def __hash__(self): return hash((self.x, self.y))
        a, b = V(1, 2), V(3, -1)
        print(a + b, a - b, a * 3, 2 * a, a / 2, 4 / a, a @ b, -a, a ** 2, 2 ** a, 1 + a, 10 - a)
        print(a == V(1, 2), a != b, a < b, a <= b, a > b, a >= b, sorted([b, a]), max(a, b))
        print(sum([a, b], V(0, 0)), {a: 1}[V(1, 2)], str(a), repr(a), f"{a}", f"{a!r}", [a])
        class Bag:
            def __init__(self, items): self.items = list(items)
            def __len__(self): return len(self.items)
            def __getitem__(self, i): return self.items[i]
            def __setitem__(self, i, v): self.items[i] = v
            def __contains__(self, v): return v in self.items
            def __bool__(self): return bool(self.items)
            def __iter__(self): return Walk(self)
            def __call__(self, k): return [k * v for v in self.items]
        class Walk:
            def __init__(self, bag): self.bag, self.i = bag, 0
            def __iter__(self): return self
            def __next__(self):
                if self.i >= len(self.bag):
                    raise StopIteration
                self.i += 1
                return self.bag[self.i - 1]
        g = Bag([1, 2, 3])
        g[1] = 7
        print(len(g), g[0], g[-1], g[1:], 7 in g, 5 not in g, list(g), bool(g), bool(Bag([])), g(2))
        print([v + 1 for v in g], sorted(g, reverse=True), dict(enumerate(g)))
        class NoHash:
            def __eq__(self, o): return True
        print(NoHash.__hash__ is None, NoHash() == 3)
        class Manager:
            def __init__(self, swallow): self.swallow = swallow
            def __enter__(self):
                print("enter")
                return self
            def __exit__(self, kind, value, tb):
                print("exit", kind, value)
                return self.swallow
        with Manager(True) as m:
            raise KeyError("boom")
        print("swallowed", m.swallow)
    """,
    "nested_qualnames_and_closures": """
        def factory(k):
            class Local:
                scale = k
                def m(self):
                    return k * self.scale
            return Local
        L = factory(3)
        print(L, L.m, L().m(), L.m.__name__)
        class Outer:
            class Inner:
                def g(self):
                    def h():
                        return 1
                    return h
        print(Outer.Inner, Outer.Inner.g, Outer.Inner().g())
        x = "global"
        class S:
            x = "class"
            y = x + "!"
            def m(self):
                return x
            z = [i for i in range(2)]
        print(S().m(), S.x, S.y, S.z)
    """,
    "private_names": """
        class Secret:
            __count = 0
            def __init__(self):
                self.__value = 41
                Secret.__count += 1
            def __bump(self):
                return self.__value + 1
            def peek(self):
                return self.__bump(), Secret.__count
        s = Secret()
        print(s.peek(), s._Secret__value, Secret._Secret__count)
        try:
            s.__value
        except AttributeError as e:
            print(e)
    """,
    "decorators": """
        def tag(label):
            def wrap(fn):
                def inner(*args, **kwargs):
                    return label + ":" + str(fn(*args, **kwargs))
                return inner
            return wrap
        def add_attribute(cls):
            cls.extra = "added"
            return cls
        @add_attribute
        class Thing:
            @tag("m")
            def method(self, x):
                return x + 1
        print(Thing().method(1), Thing.extra, Thing().extra)
    """,
    "call_errors_name_methods": """
        class A:
            def m(self, x):
                pass
        A().m(1, 2)
    """,
    "missing_attribute_suggests": """
        class A:
            def __init__(self):
                self.value = 1
        A().valu
    """,
    "missing_class_attribute": """
        class A:
            x = 1
        A.y
    """,
    "no_arguments": """
        class A:
            pass
        A(1)
    """,
    "init_returns": """
        class A:
            def __init__(self):
                return 5
        A()
    """,
    "repr_not_a_string": """
        class A:
            def __repr__(self):
                return 5
        repr(A())
    """,
    "duplicate_base": """
        class A:
            pass
        class B(A, A):
            pass
    """,
    "super_without_class": """
        def f(self):
            return super()
        f(1)
    """,
    "super_without_arguments": """
        class A:
            def f():
                return super()
        A.f()
    """,
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_classes_behave_as_in_cpython(run, name):
    same_as_cpython(run, textwrap.dedent(SNIPPETS[name]).lstrip())


def test_a_class_is_a_real_python_class_with_its_functions_as_descriptors(run):
    code = "class A:\n    def f(self, a, b=2, *c, d, e=5, **g):\n        return a\n"
    from gradcli.lang import Session
    from fake_engine import make_engine
    session = Session(engine=make_engine())
    assert session.run_source(code, "t.ag").ok
    cls = session.globals["A"]
    assert isinstance(cls, type) and cls.__module__ == "__main__" and cls.__qualname__ == "A"
    assert str(inspect.signature(cls.f)) == "(self, a, b=2, *c, d, e=5, **g)"
    assert str(inspect.signature(cls().f)) == "(a, b=2, *c, d, e=5, **g)"
    assert cls().f(1, d=0) == 1


def test_an_engine_base_that_holds_the_scripts_attributes(run):
    """A base like nn.Module: __script_dynamic__, its own __setattr__/__getattr__/__call__."""
    result = run(textwrap.dedent("""
        class Net(Module):
            def __init__(self, k):
                super().__init__()
                self.weight = Param(k)
                self.k = k
            def forward(self, x):
                return x * self.weight.value + self.k
        net = Net(3)
        print(net(2), net.weight.value, net.params(), net.k, Module.describe(net))
        Module.__init__(net)
        print(net.params())
        net.hidden
    """))
    assert result.out == "9 3 ['weight'] 3 Net with 1\n[]\n"
    assert result.headline == "AttributeError: 'Net' object has no attribute 'hidden'"


def test_engine_members_stay_hidden_unless_listed(run):
    result = run(textwrap.dedent("""
        class F(Function):
            @staticmethod
            def forward(ctx, x):
                return x
        print(F.apply(1), F.forward(None, 2), F.created)
        F._private_node
    """))
    assert result.out == "1 2 ['F']\n"
    assert result.headline == "AttributeError: type object 'F' has no attribute '_private_node'"


@pytest.mark.parametrize("code, message", [
    ("class A:\n    def __init_subclass__(cls):\n        pass\n",
     "gradcli does not support defining '__init_subclass__' in a class"),
    ("class A:\n    __slots__ = ('x',)\n", "gradcli does not support defining '__slots__' in a class"),
    ("class A:\n    def __getattr__(self, name):\n        pass\n",
     "gradcli does not support defining '__getattr__' in a class"),
    ("class A(metaclass=type):\n    pass\n", "gradcli does not support metaclasses (metaclass=)"),
    ("try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n", "default 'except:' must be last"),
])
def test_definitions_outside_the_language_are_syntax_errors(run, code, message):
    result = run(code)
    assert result.code == 1
    assert result.headline == "SyntaxError: " + message
    assert result.err.startswith("test.ag:")


def test_a_base_not_made_for_subclassing_is_refused(run):
    result = run("import torch\nclass T(torch.Tensor):\n    pass\n")
    assert result.headline.startswith("NotImplementedError: gradcli does not support subclassing ")
    assert result.headline.endswith(".Tensor")


def test_errors_in_methods_point_into_the_method(run):
    result = run("class A:\n    def f(self):\n        return 1 / 0\nA().f()\n")
    assert result.err.startswith("test.ag:3:16: ZeroDivisionError: division by zero")


def test_deep_recursion_through_methods_and_special_methods(run):
    code = textwrap.dedent("""
        class R:
            def down(self, n):
                return n if n == 0 else self.down(n - 1)
            def __call__(self, n):
                return self(n + 1)
        print(R().down(900))
        R()(0)
    """)
    result = run(code)
    assert result.out == "0\n"
    assert result.headline == "RecursionError: maximum recursion depth exceeded"


def test_classes_in_the_repl_need_a_blank_line():
    from gradcli.lang import is_complete
    assert is_complete("class A:\n    x = 1") == "incomplete"
    assert is_complete("class A:\n    x = 1\n") == "complete"
    assert is_complete("try:\n    x = 1\nexcept:") == "incomplete"
