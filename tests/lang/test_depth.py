"""Depth without segfaults: the script thread's C stack, and the depth limits of nested data
(gradcli.lang.script_thread, gradcli.lang.nesting)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.lang import nesting, script_thread

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shallow(monkeypatch):
    """Nesting limited to 50, so that the limits are reached in a few steps."""
    monkeypatch.setattr(nesting, "MAX_NESTING", 50)


def test_a_tuple_nested_too_deep_is_a_located_recursion_error(run, shallow):
    for build in ("(t,)", "(1, t, 2)", "(t, 1)", "(*t, t)"):
        result = run(f"t = ()\nfor i in range(100):\n    t = {build}\n")
        assert result.code == 1
        lines = result.err.splitlines()
        assert lines[0] == ("test.ag:3:9: RecursionError: maximum recursion depth exceeded "
                            "(tuples nested more than 50 deep)"), build
        assert lines[2].strip() == "^" * len(build)


def test_the_limit_is_the_same_inside_a_function(run, shallow):
    result = run("def f():\n    t = ()\n    for i in range(100):\n        t = (t, i)\n    return t\nf()\n")
    assert result.err.splitlines()[0].startswith("test.ag:4:13: RecursionError: maximum recursion")


def test_tuples_within_the_limit_are_untouched(run, shallow):
    result = run("t = ()\nfor i in range(48):\n    t = (t,)\nprint(hash(t) == hash(t), len(t), (1, 2), ((1,), (2,)))\n"
                 "s = (t, t)\nprint(len(s))\n")
    assert result.err == ""
    assert result.out == "True 1 (1, 2) ((1,), (2,))\n2\n"


def test_shared_tuples_are_measured_once():
    # t = (t, t) doubles the leaves at each level: measuring must not visit each path
    t = ()
    for _ in range(60):
        t = (t, t)
    nesting._recent.clear()
    assert nesting._depth(t) == 61


@pytest.mark.parametrize("chain", ["map(abs, m)", "filter(None, m)", "zip(m, m)", "enumerate(m)"])
def test_a_chain_of_iterators_too_deep_is_a_recursion_error(run, shallow, chain):
    result = run(f"m = [1]\nfor i in range(100):\n    m = {chain}\n")
    assert result.err.splitlines()[0] == ("test.ag:3:9: RecursionError: maximum recursion depth exceeded "
                                          "(iterators nested more than 50 deep)")


def test_itertools_chains_are_counted_too(run, shallow):
    result = run("import itertools\nm = [1]\nfor i in range(100):\n    m = itertools.islice(itertools.chain(m), 5)\n")
    assert "iterators nested more than 50 deep" in result.err


def test_the_counting_iterators_look_like_pythons(run):
    result = run("m = map(abs, [-1, 2])\nprint(type(m), type(m) is map, isinstance(m, map), list(m))\n"
                 "print(repr(zip([1]))[:12], list(enumerate('ab', 1)), list(filter(None, [0, 3])))\n"
                 "print(map.__name__, list(zip([1, 2], [3, 4], strict=True)))\n")
    assert result.err == ""
    assert result.out == ("<class 'map'> True True [1, 2]\n<zip object  [(1, 'a'), (2, 'b')] [3]\n"
                          "map [(1, 3), (2, 4)]\n")


def test_the_depth_is_not_a_script_attribute(run):
    result = run("m = map(abs, [1])\nm._nesting\n")
    assert "AttributeError" in result.err


def test_scripts_run_on_a_thread_with_the_big_stack(run):
    from gradcli.lang import script_worker
    seen = []
    original = script_worker.Worker.__init__

    def spy(self, work, stack_size=0):
        seen.append(stack_size)
        original(self, work, stack_size)
    script_worker.Worker.__init__ = spy
    try:
        result = run("x = 1\nprint(x)\n")
    finally:
        script_worker.Worker.__init__ = original
    assert result.out == "1\n"
    assert seen == [script_thread.STACK_BYTES]


def test_a_marked_thread_is_a_script_thread():
    assert not script_thread.in_script_thread()
    assert script_thread.marked(script_thread.in_script_thread) is True
    assert not script_thread.in_script_thread()



def test_deep_recursion_in_c_ends_in_recursion_errors_not_a_crash(tmp_path):
    # the real limits, in a child process (a crash there must not take the test run with it)
    script = tmp_path / "deep.ag"
    script.write_text(
        "def deep(build, n):\n"
        "    x = build(None)\n"
        "    for i in range(n):\n"
        "        x = build(x)\n"
        "    return x\n"
        "for name, build, use in [\n"
        "        ('tuple', lambda t: (t,), hash),\n"
        "        ('map', lambda m: map(abs, m if m is not None else [1]), next),\n"
        "        ('generator', lambda g: (v for v in (g if g is not None else [1])), next),\n"
        "        ('list', lambda l: [l], repr)]:\n"
        "    try:\n"
        "        use(deep(build, 200000))\n"
        "        print(name, 'ok')\n"
        "    except RecursionError as error:\n"
        "        print(name, 'RecursionError')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "gradcli", "run", str(script)], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("tuple RecursionError\nmap RecursionError\n"
                             "generator RecursionError\nlist RecursionError\n")
