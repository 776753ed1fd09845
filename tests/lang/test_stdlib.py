"""The standard-library subsets (random, functools, itertools, collections) behave as CPython's,
and what they lack says so."""

from __future__ import annotations

import random
import textwrap

import pytest

from cpython import same_as_cpython


def test_random_is_cpythons_stream_after_seed(run):
    code = textwrap.dedent("""
        import random
        from random import randint
        random.seed(42)
        print(random.random(), randint(1, 10), random.randrange(0, 100, 7), random.uniform(1, 2))
        print(random.gauss(0, 1))
        xs = list(range(10))
        random.shuffle(xs)
        print(xs, random.choice(xs), random.choices(xs, k=3), random.sample(xs, 4))
        print(random.choices("ab", weights=[1, 3], k=5))
        random.seed("text")
        print(random.random())
    """)
    generator = random.Random(42)
    lines = [f"{generator.random()} {generator.randint(1, 10)} {generator.randrange(0, 100, 7)} "
             f"{generator.uniform(1, 2)}", f"{generator.gauss(0, 1)}"]
    xs = list(range(10))
    generator.shuffle(xs)
    lines.append(f"{xs} {generator.choice(xs)} {generator.choices(xs, k=3)} {generator.sample(xs, 4)}")
    lines.append(f"{generator.choices('ab', weights=[1, 3], k=5)}")
    generator.seed("text")
    lines.append(f"{generator.random()}")
    assert run(code).out == "\n".join(lines) + "\n"


def test_each_session_has_its_own_generator(run):
    first = run("import random\nrandom.seed(7)\nprint(random.random())\n").out
    second = run("import random\nrandom.seed(7)\nx = random.random()\nprint(x)\n").out
    assert first == second == f"{random.Random(7).random()}\n"


SNIPPETS = {
    "random_errors": """
        import random
        random.seed(0)
        for attempt in (lambda: random.randint(5, 1), lambda: random.choice([]), lambda: random.sample([1], 2)):
            try:
                attempt()
            except (ValueError, IndexError) as e:
                print(type(e).__name__, e)
    """,
    "functools": """
        from functools import partial, reduce
        import functools
        def add(a, b, c=0):
            return a + b + c
        p = partial(add, 1, c=5)
        print(p(2), p.func is add, p.args, p.keywords, reduce(add, [1, 2, 3, 4]))
        print(reduce(lambda a, b: a * b, [1, 2, 3], 10), functools.partial(add, 2)(3), type(p))
    """,
    "itertools": """
        import itertools
        from itertools import count, chain, product, islice, permutations, combinations, repeat
        print(list(islice(count(), 5)), list(islice(count(2, 0.5), 3)), count(3), count(1, 2), count(0.5, 0.25))
        print(list(chain([1, 2], (3,), "ab")), list(chain.from_iterable([[1], [2, 3]])))
        print(list(product([1, 2], "ab")), list(product(range(2), repeat=2)))
        print(list(permutations([1, 2, 3], 2)), list(combinations("abcd", 2)), list(combinations(range(3), 3)))
        print(list(repeat("x", 3)), repeat(1, 2), repeat(1), list(islice(repeat(7), 2)))
        print(type(count()), isinstance(count(), itertools.count), next(count(5)), sum(islice(count(), 100)))
        for i, (a, b) in enumerate(zip(count(), "xy")):
            print(i, a, b)
    """,
    "collections": """
        from collections import OrderedDict, defaultdict, Counter, namedtuple
        od = OrderedDict([("a", 1), ("b", 2)])
        od["c"] = 3
        od.move_to_end("a")
        print(od, od.popitem(), od.popitem(last=False), od, list(od.keys()), od.get("b"))
        dd = defaultdict(list)
        dd["x"].append(1)
        dd["y"]
        print(dd, dd.default_factory, dict(dd), isinstance(dd, dict))
        counts = defaultdict(int)
        for ch in "hello world":
            counts[ch] += 1
        print(sorted(counts.items()))
        c = Counter("mississippi")
        print(c, c.most_common(2), c["s"], c["z"], sorted(c.elements())[:5], c.total())
        c.update("ss")
        c.subtract({"i": 1})
        print(c, Counter([1, 1, 2]) + Counter([2, 3]))
        Point = namedtuple("Point", "x y")
        pt = Point(1, y=2)
        print(pt, pt.x, pt[1], pt._asdict(), pt._replace(x=5), Point._fields, Point._make([3, 4]))
        print(type(pt), Point, pt == (1, 2), len(pt), pt.count(1), pt.index(2))
        x, y = pt
        P3 = namedtuple("P3", ["a", "b", "c"], defaults=[0])
        print(x + y, P3(1, 2), P3._field_defaults)
        class Vec(namedtuple("Vec", "x y")):
            def norm2(self):
                return self.x ** 2 + self.y ** 2
        v = Vec(3, 4)
        print(v, v.norm2(), v.x, isinstance(v, tuple))
        try:
            namedtuple("Bad", "x x")
        except ValueError as e:
            print(e)
    """,
    "future_annotations": """
        from __future__ import annotations
        def f(x: Undefined) -> AlsoUndefined:
            return x
        y: NotDefined = 2
        print(f(1), y)
    """,
    "future_not_first": """
        x = 1
        from __future__ import annotations
    """,
    "future_unknown": """
        from __future__ import nothing
    """,
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_stdlib_behaves_as_in_cpython(run, name):
    same_as_cpython(run, textwrap.dedent(SNIPPETS[name]).lstrip())


@pytest.mark.parametrize("code, message", [
    ("import random\nrandom.Random()", "NotImplementedError: gradcli does not support random.Random yet"),
    ("from itertools import cycle", "NotImplementedError: gradcli does not support itertools.cycle yet"),
    ("import collections\ncollections.deque()", "NotImplementedError: gradcli does not support collections.deque yet"),
    ("import functools\nfunctools.lru_cache", "NotImplementedError: gradcli does not support functools.lru_cache yet"),
    ("import random\nrandom.randnt(1, 2)",
     "AttributeError: module 'random' has no attribute 'randnt'. Did you mean: 'randint'?"),
    ("import random.foo", "ModuleNotFoundError: No module named 'random.foo'; 'random' is not a package"),
    ("from random import nope", "ImportError: cannot import name 'nope' from 'random' (unknown location)"),
    ("import os", "ModuleNotFoundError: No module named 'os'"),
    ("import time", "ModuleNotFoundError: No module named 'time'"),
    ("from __future__ import braces", "SyntaxError: not a chance"),
])
def test_what_the_subsets_lack_says_so(run, code, message):
    result = run(code + "\n")
    assert result.code == 1
    assert result.headline == message


def test_import_hint_names_the_subsets(run):
    assert "random, functools, itertools and collections" in run("import os\n").err


def test_an_endless_iterator_stops_at_the_time_limit(run):
    result = run("import itertools\nprint(sum(itertools.count()))\n", timeout=0.3)
    assert "TimeoutError: the script ran longer than the time limit" in result.err
