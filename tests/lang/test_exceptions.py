"""try/except/else/finally and raise as Python 3.11 has them; gradcli's own bugs and limits are
never the script's to catch."""

from __future__ import annotations

import textwrap

import pytest

from cpython import same_as_cpython

SNIPPETS = {
    "clauses_in_order": """
        def f(n):
            try:
                if n == 0:
                    raise ValueError("zero")
                if n == 1:
                    raise KeyError
                if n == 2:
                    return "two"
                if n == 3:
                    [][1]
                return "other"
            except ValueError as e:
                print("VE", e, e.args, repr(e))
                return "ve"
            except (KeyError, IndexError) as e:
                print("KI", type(e), repr(e), e.args)
            else:
                print("else")
            finally:
                print("finally", n)
        for i in range(5):
            print(f(i))
    """,
    "finally_and_control_flow": """
        def loop():
            for i in range(3):
                try:
                    if i == 1:
                        continue
                    if i == 2:
                        break
                finally:
                    print("fin", i)
            return i
        def overrides():
            try:
                return 1
            finally:
                return 2
        def swallows():
            try:
                raise ValueError("x")
            finally:
                return "swallowed"
        print(loop(), overrides(), swallows())
    """,
    "reraise_and_chaining": """
        try:
            try:
                raise ValueError("inner")
            except ValueError:
                raise
        except ValueError as e:
            print("reraised", e)
        def helper():
            raise
        try:
            try:
                1 / 0
            except ZeroDivisionError:
                helper()
        except ZeroDivisionError as e:
            print("bare raise in a called function:", e)
        try:
            try:
                1 / 0
            except ZeroDivisionError as e:
                raise RuntimeError("wrapped") from e
        except RuntimeError as e:
            print(e, repr(e))
        def nested():
            try:
                raise ValueError("first")
            except ValueError:
                try:
                    raise TypeError("second")
                except TypeError:
                    pass
                raise
        try:
            nested()
        except ValueError as e:
            print("the outer one again:", e)
    """,
    "exception_classes": """
        class MyError(ValueError):
            def __init__(self, code):
                super().__init__(f"code {code}")
                self.code = code
        try:
            raise MyError(42)
        except ValueError as e:
            print(type(e), e, e.code, e.args, isinstance(e, MyError), repr(e))
        class Plain(Exception):
            pass
        for value in (Plain, Plain("a", 1)):
            try:
                raise value
            except Exception as e:
                print(repr(e), str(e), e.args)
        print(ValueError, issubclass(KeyError, LookupError), issubclass(ZeroDivisionError, ArithmeticError))
        e = ValueError("kept", 3)
        print(repr(e), str(e), isinstance(e, Exception), repr(KeyError("k")), str(KeyError("k")))
        try:
            raise StopIteration(5)
        except StopIteration as s:
            print(s.value, s.args)
    """,
    "pythons_own_errors_are_caught": """
        for bad in ["x", [], {}, None]:
            try:
                if isinstance(bad, str):
                    int(bad)
                elif isinstance(bad, list):
                    bad[0]
                elif isinstance(bad, dict):
                    bad["k"]
                else:
                    bad.foo
            except (ValueError, IndexError) as e:
                print(type(e), "->", e)
            except LookupError as e:
                print("lookup", type(e), e)
            except AttributeError as e:
                print(type(e), e)
        try:
            undefined_name_here
        except NameError as e:
            print(type(e), e, e.name)
        try:
            assert 1 == 2, "nope"
        except AssertionError as e:
            print(type(e), e)
        try:
            def rec(n):
                return rec(n + 1)
            rec(0)
        except RecursionError as e:
            print(type(e), e)
    """,
    "as_name_is_unbound_afterwards": """
        def f():
            try:
                raise ValueError("v")
            except ValueError as err:
                pass
            return err
        f()
    """,
    "not_an_exception": """
        raise 5
    """,
    "cause_not_an_exception": """
        raise ValueError("v") from 3
    """,
    "catching_a_non_class": """
        try:
            raise ValueError
        except 5:
            pass
    """,
    "uncaught_script_class": """
        class BadShape(Exception):
            pass
        raise BadShape("expected (2, 3)")
    """,
    "uncaught_with_cause": """
        try:
            {}["k"]
        except KeyError as e:
            raise ValueError("missing") from e
    """,
    "nothing_to_reraise": """
        raise
    """,
    "str_fails": """
        class E(Exception):
            def __str__(self):
                return 1
        raise E()
    """,
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_exceptions_behave_as_in_cpython(run, name):
    same_as_cpython(run, textwrap.dedent(SNIPPETS[name]).lstrip())


def test_an_uncaught_raise_is_reported_where_it_was_raised(run):
    result = run("def check(n):\n    if n > 1:\n        raise ValueError(f'too big: {n}')\ncheck(3)\n")
    assert result.err.splitlines()[:3] == [
        "test.ag:3:9: ValueError: too big: 3",
        "    raise ValueError(f'too big: {n}')",
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"]


def test_the_engines_errors_are_caught_as_the_builtins_they_subclass(run):
    result = run(textwrap.dedent("""
        try:
            tensor([1., 2.]).backward()
        except RuntimeError as e:
            print(type(e), type(e) is RuntimeError, e)
        try:
            no_such_name
        except Exception as e:
            print(type(e), type(e).__name__, e)
    """))
    assert result.out == ("<class 'RuntimeError'> True grad can be implicitly created only for scalar outputs\n"
                          "<class 'NameError'> NameError name 'no_such_name' is not defined\n")


def test_a_bug_in_gradcli_is_never_caught_by_the_script(run):
    # `broken` is engine code that fails with a plain IndexError: a bug, not the script's error
    result = run("try:\n    broken()\nexcept Exception:\n    print('hidden')\nfinally:\n    print('fin')\n")
    assert result.out == ""
    assert result.code == 70
    assert "internal error: IndexError" in result.err


def test_a_context_manager_cannot_swallow_a_bug(run):
    code = textwrap.dedent("""
        class Quiet:
            def __enter__(self):
                return self
            def __exit__(self, *args):
                print("exit")
                return True
        with Quiet():
            broken()
        print("after")
    """)
    result = run(code)
    assert result.code == 70 and result.out == ""


def test_ctrl_c_passes_every_handler_but_runs_finally_and_exit(run):
    result = run(textwrap.dedent("""
        class Clean:
            def __enter__(self):
                return self
            def __exit__(self, *args):
                print("exit")
                return True
        try:
            with Clean():
                interrupt()
        except BaseException:
            print("caught")
        finally:
            print("finally")
    """))
    assert result.code == 130 and result.out == "exit\nfinally\n"


def test_the_time_limit_passes_every_handler(run):
    result = run("try:\n    while True:\n        pass\nexcept BaseException:\n    print('caught')\n"
                 "finally:\n    print('finally')\n", timeout=0.2)
    assert result.out == ""
    assert "TimeoutError: the script ran longer than the time limit" in result.err


def test_a_script_may_raise_a_base_exception_of_its_own(run):
    result = run("class Stop(BaseException):\n    pass\nraise Stop('now')\n")
    assert result.code == 1
    assert result.headline == "Stop: now"


def test_caught_errors_show_the_builtin_class_in_exit(run):
    result = run(textwrap.dedent("""
        class Show:
            def __enter__(self):
                return self
            def __exit__(self, kind, value, tb):
                print(kind, value)
                return True
        with Show():
            undefined_thing
    """))
    assert result.out == "<class 'NameError'> name 'undefined_thing' is not defined\n"
