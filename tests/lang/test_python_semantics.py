"""Scripts made of plain Python values print exactly what Python prints.

Each snippet runs twice: under CPython (``exec``) and under gradcli; stdout
must be identical, and where Python raises, gradcli reports the same
``ErrorType: message``.
"""

from __future__ import annotations

import contextlib
import io
import textwrap

import pytest

SNIPPETS = {
    "locals_and_globals": """
        g = 10
        def f(a):
            b = a + g
            return b * 2
        print(f(1), g)
    """,
    "closures_late_binding": """
        def outer():
            x = 1
            def inner():
                return x
            x = 2
            return inner
        print(outer()())
        fs = [lambda: i for i in range(3)]
        print([f() for f in fs])
        gs = [lambda i=i: i for i in range(3)]
        print([g() for g in gs])
    """,
    "nonlocal_and_global": """
        counter = 0
        def bump():
            global counter
            counter += 1
        bump(); bump()
        def make():
            n = 0
            def inc():
                nonlocal n
                n += 1
                return n
            return inc
        inc = make()
        inc()
        print(counter, inc())
    """,
    "comprehension_scope": """
        x = 'outer'
        ys = [x for x in range(3)]
        print(x, ys)
        print({k: k * 2 for k in 'ab'}, {v % 2 for v in range(5)})
        print([(i, j) for i in range(3) for j in range(i) if (i + j) % 2])
        print(sum(x * x for x in range(4)), list(x for x in 'hi'))
    """,
    "short_circuit": """
        def side(v):
            print('side', v)
            return v
        print(side(0) and side(1), side(1) or side(2), side(0) or side(''))
        print(1 < 2 < side(3) < 2, 3 < 2 < side(9))
        print([] or {} or 'last', 1 and 2 and 3, not [], not 0.0)
    """,
    "conditional_expression": """
        for n in range(4):
            print('even' if n % 2 == 0 else 'odd', end=' ')
        print()
    """,
    "identity_and_membership": """
        a = [1]
        b = a
        print(a is b, a is not [1], 1 in a, 2 not in a, 'b' in 'abc', None is None)
    """,
    "unpacking": """
        a, (b, c), *d = 1, (2, 3), 4, 5
        print(a, b, c, d)
        first, *middle, last = 'hello'
        print(first, middle, last)
        for i, (k, v) in enumerate({'x': 1}.items()):
            print(i, k, v)
        x = y = [0]
        x += [1]
        print(x, y)
        n = m = 1
        n += 1
        print(n, m)
    """,
    "calls": """
        def f(a, b=2, *args, c=3, **kw):
            return (a, b, args, c, kw)
        print(f(1))
        print(f(1, 5, 6, 7, c=8, z=9))
        print(f(*[1, 2], **{'c': 0, 'q': 1}))
        print(f(b=0, a=1))
        print((lambda *a, **k: (a, k))(1, x=2))
    """,
    "loops_with_else": """
        for i in range(3):
            if i == 5:
                break
        else:
            print('no break', i)
        n = 0
        while n < 10:
            n += 3
            if n == 6:
                break
        else:
            print('never')
        print(n)
        while False:
            pass
        else:
            print('while else')
    """,
    "del_statement": """
        d = {'a': 1, 'b': 2}
        del d['a']
        xs = [1, 2, 3, 4]
        del xs[1:3]
        v = 1
        del v
        print(d, xs, 'v' in globals() if False else 'ok')
    """,
    "strings": """
        s = 'Hello, World'
        print(s.lower(), s.upper(), s.split(', '), '-'.join(['a', 'b']), s.replace('l', 'L'))
        print(s.startswith('He'), s.strip('Hd'), s.find('W'), s[::-1], s * 2)
        print('{} + {} = {}'.format(1, 2, 3), '{0}{1}{0}'.format('a', 'b'), '{x:>4}'.format(x=7))
        print('%d items, %.2f each' % (3, 1.5), 'tab\\tsep', r'raw\\n', 'a' 'b' "c")
        print(f'{s!r:>20}', f'{3.14159:.2f}', f'{42:08b}', f'{"q"}', f'{1 + 1 = }', f'{s=}')
        w, p = 10, 3
        print(f'{2.718281:{w}.{p}f}|', f'{{}}', f"{'nested ' + s[:5]}")
    """,
    "numbers": """
        print(7 // 2, -7 // 2, 7 % -3, 2 ** -1, 2 ** 0.5, 10 / 4, 1e3, 0x10, 0o17, 0b101, 1_000)
        print(divmod(17, 5), pow(2, 10), abs(-2.5), round(2.675, 2), round(-0.5), int('  12 '))
        print(~5, 5 & 3, 5 | 3, 5 ^ 3, 1 << 4, 256 >> 2, -(-3), +4)
        print(max([3, 1, 2]), min('bca'), sorted([3, 1, 2], reverse=True), list(reversed([1, 2])))
        print(any([0, 1]), all([]), hex(255), bin(5), oct(8), chr(65), ord('a'), len(range(0, 10, 3)))
        print(isinstance(True, int), isinstance(1.0, (int, float)), type(1.5), type([]) is list)
        print(list(map(lambda v: v * 2, [1, 2])), list(filter(None, [0, 1, 2])), list(zip('ab', [1, 2])))
    """,
    "containers": """
        xs = [3, 1, 2]
        xs.append(4); xs.sort(); xs.insert(0, 0); xs.extend([9]); xs.remove(9)
        print(xs, xs.pop(), xs.index(2), xs.count(1), xs[1:3], xs[-1])
        d = {}
        d.setdefault('k', []).append(1)
        d.update(a=2)
        print(d, d.get('missing', 'default'), list(d.items()), list(d.keys()), list(d.values()))
        t = (1, 2) + (3,)
        print(t, t.count(1), t[::2], len(t), (1,) * 3, [[0] * 2] * 2, {1, 2} | {3})
        m = [[1, 2], [3, 4]]
        m[0][1] = 9
        print(m, [row[1] for row in m])
    """,
    "decorators": """
        def twice(f):
            def wrapper(*a):
                return f(f(*a))
            return wrapper
        @twice
        def inc(x):
            return x + 1
        print(inc(1))
    """,
    "recursion": """
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        def depth(n):
            return 0 if n == 0 else 1 + depth(n - 1)
        print(fib(12), depth(900))
    """,
    "one_line_blocks_and_semicolons": """
        y = 1
        while y < 100: y = y * 3
        if y > 10: print('big'); print(y)
        for i in range(2): print(i, end=';')
        print()
    """,
    "function_repr_and_type": """
        def f():
            pass
        print(f() is None, type(f), type(lambda: 0), repr('x'), str(None), type(type(3)))
    """,
}

ERRORS = {
    "name_error": "print(undefined_name)",
    "unbound_local": "x = 1\ndef f():\n    print(x)\n    x = 2\nf()",
    "too_many_values": "a, b = [1, 2, 3]",
    "not_enough_values": "a, b, c = [1, 2]",
    "not_enough_starred": "a, *b, c = [1]",
    "not_iterable_unpack": "a, b = 5",
    "str_plus_int": "'a' + 1",
    "int_division": "1 // 0",
    "modulo": "1 % 0",
    "float_division": "1.0 / 0",
    "index": "[1][5]",
    "key": "{}['k']",
    "int_literal": "int('1.5')",
    "missing_arg": "def f(a, b):\n    pass\nf(1)",
    "missing_args": "def f(a, b, c):\n    pass\nf()",
    "too_many_args": "def g(a, b=1):\n    pass\ng(1, 2, 3)",
    "too_many_args_plain": "def g(a):\n    pass\ng(1, 2)",
    "zero_args": "def g():\n    pass\ng(1)",
    "unexpected_kw": "def h(x):\n    pass\nh(y=3)",
    "multiple_values": "def h(x):\n    pass\nh(1, x=2)",
    "kwonly_missing": "def h(*, k):\n    pass\nh()",
    "lambda_missing": "(lambda a, b: 0)(1)",
    "nested_qualname": "def outer():\n    def inner(a):\n        pass\n    inner()\nouter()",
    "not_callable": "x = 3\nx()",
    "attribute_on_int": "(3).foo",
    "attribute_on_none": "None.zero_",
    "list_method_missing": "[].push(1)",
    "unsupported_operand": "[] - 1",
    "bad_format": "f'{\"x\":d}'",
    "assert_message": "assert 1 == 2, 'not equal'",
    "assert_plain": "assert []",
    "len_of_int": "len(5)",
    "not_iterable_for": "for i in 5:\n    pass",
    "sep_type": "print(1, sep=3)",
    "math_domain": "import math\nmath.sqrt(-1)",
    "with_non_manager": "with 3:\n    pass",
    "star_not_iterable": "print(*1)",
    "recursion": "def f():\n    return f()\nf()",
    "module_not_found": "import no_such_module_here",
    "module_not_found_dotted": "import no_such_pkg.path",
    "format_index": "'{1}'.format(0)",
}


def python_output(code: str) -> tuple[str, str | None]:
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "<snippet>", "exec"), {})
        except Exception as exc:  # noqa: BLE001 - the oracle reports any error
            message = str(exc)
            error = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return out.getvalue(), error


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_prints_what_python_prints(run, name):
    code = textwrap.dedent(SNIPPETS[name]).strip() + "\n"
    expected, error = python_output(code)
    assert error is None, error
    result = run(code)
    assert result.err == ""
    assert result.out == expected
    assert result.code == 0


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pythons(run, name):
    code = ERRORS[name] + "\n"
    _, expected = python_output(code)
    if name == "recursion":
        expected = "RecursionError: maximum recursion depth exceeded"
    if name == "format_index":  # str.format's own wording (gradcli's formatter is string.Formatter)
        expected = "IndexError: tuple index out of range"
    assert expected is not None
    result = run(code)
    assert result.code == 1
    assert result.headline == expected
    assert "Traceback" not in result.err
