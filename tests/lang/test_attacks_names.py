"""Names and imports: ``open``/``eval``/``exec``/``__import__``/``__builtins__``/``globals``
and the rest of the builtins a sandbox must not offer, every module that reaches the system
(``os sys subprocess builtins importlib ctypes pickle socket ...``), private members of the
standard-library subsets, names spelt with Unicode characters that NFKC folds to a forbidden name
(pyjail's fullwidth ``ｅｖａｌ``, mathematical bold, ligatures), attribute names built at run
time, and shadowing the sandbox's own builtins.

Each attempt runs through Session.run_source with the real engine (tests/lang/attacks.py) and must
end in a clean, located refusal: the error a script gets, word for word, and nothing written,
nothing read from the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attacks import assert_refused, sandboxed  # noqa: F401 - sandboxed is a fixture

ATTACKS = [
    pytest.param("open('/etc/passwd')",
                 "NameError: name 'open' is not defined", id='open'),
    pytest.param("open('pwned.txt', 'w')",
                 "NameError: name 'open' is not defined", id='open_write'),
    pytest.param("eval('1')",
                 "NameError: name 'eval' is not defined", id='eval'),
    pytest.param("exec('x = 1')",
                 "NameError: name 'exec' is not defined", id='exec'),
    pytest.param("__import__('os')",
                 "NameError: name '__import__' is not defined", id='import_builtin'),
    pytest.param('__builtins__',
                 "NameError: name '__builtins__' is not defined", id='builtins_name'),
    pytest.param("__builtins__['eval']",
                 "NameError: name '__builtins__' is not defined", id='builtins_subscript'),
    pytest.param('globals()',
                 "NameError: name 'globals' is not defined", id='globals'),
    pytest.param('locals()',
                 "NameError: name 'locals' is not defined", id='locals'),
    pytest.param('vars()',
                 'NotImplementedError: gradcli does not support vars() yet', id='vars_no_argument'),
    pytest.param('input()',
                 "NameError: name 'input' is not defined", id='input'),
    pytest.param('exit()',
                 "NameError: name 'exit' is not defined", id='exit'),
    pytest.param('quit()',
                 "NameError: name 'quit' is not defined", id='quit'),
    pytest.param("memoryview(b'')",
                 'SyntaxError: gradcli does not support bytes literals', id='memoryview'),
    pytest.param('bytearray(3)',
                 "NameError: name 'bytearray' is not defined", id='bytearray'),
    pytest.param('__loader__',
                 "NameError: name '__loader__' is not defined", id='loader_name'),
    pytest.param('__spec__',
                 "NameError: name '__spec__' is not defined", id='spec_name'),
    pytest.param('__file__',
                 "NameError: name '__file__' is not defined", id='file_name'),
    pytest.param('__build_class__',
                 "NameError: name '__build_class__' is not defined", id='build_class'),
    pytest.param('import os',
                 "ModuleNotFoundError: No module named 'os'", id='import_os'),
    pytest.param('import sys',
                 "ModuleNotFoundError: No module named 'sys'", id='import_sys'),
    pytest.param('import subprocess',
                 "ModuleNotFoundError: No module named 'subprocess'", id='import_subprocess'),
    pytest.param('import builtins',
                 "ModuleNotFoundError: No module named 'builtins'", id='import_builtins'),
    pytest.param('import importlib',
                 "ModuleNotFoundError: No module named 'importlib'", id='import_importlib'),
    pytest.param('import ctypes',
                 "ModuleNotFoundError: No module named 'ctypes'", id='import_ctypes'),
    pytest.param('import pickle',
                 "ModuleNotFoundError: No module named 'pickle'", id='import_pickle'),
    pytest.param('import io',
                 "ModuleNotFoundError: No module named 'io'", id='import_io'),
    pytest.param('import __main__',
                 "ModuleNotFoundError: No module named '__main__'", id='import_main'),
    pytest.param('from os import system',
                 "ModuleNotFoundError: No module named 'os'", id='from_os_system'),
    pytest.param('import os.path',
                 "ModuleNotFoundError: No module named 'os'", id='from_os_path'),
    pytest.param('from . import x',
                 'SyntaxError: invalid syntax', id='relative_import'),
    pytest.param('import posix',
                 "ModuleNotFoundError: No module named 'posix'", id='import_posix'),
    pytest.param('import socket',
                 "ModuleNotFoundError: No module named 'socket'", id='import_socket'),
    pytest.param('import shutil',
                 "ModuleNotFoundError: No module named 'shutil'", id='import_shutil'),
    pytest.param('import math.os',
                 "ModuleNotFoundError: No module named 'math.os'; 'math' is not a package", id='math_as_package'),
    pytest.param('import random\nrandom._os',
                 'NotImplementedError: gradcli does not support random._os yet', id='random_private_os'),
    pytest.param('import random\nrandom._inst',
                 'NotImplementedError: gradcli does not support random._inst yet', id='random_instance'),
    pytest.param('import collections.abc',
                 'NotImplementedError: gradcli does not support collections.abc yet', id='collections_abc'),
    pytest.param('from functools import _lru_cache_wrapper',
                 'NotImplementedError: gradcli does not support', id='functools_private'),
    pytest.param("help('modules')\nundefined_after_help",
                 "NameError: name 'undefined_after_help' is not defined", id='help_modules_pager'),
    pytest.param("print([n for n in dir() if n.startswith('__')])\n"
                 "[n for n in dir(tensor([1.])) if n.startswith('_d')][0]",
                 'IndexError: list index out of range', id='dir_lists_no_dunders'),
    pytest.param("ｅｖａｌ('1')",
                 "NameError: name 'ｅｖａｌ' is not defined", id='unicode_fullwidth_eval'),
    pytest.param("ｏｐｅｎ('/etc/passwd')",
                 "NameError: name 'ｏｐｅｎ' is not defined", id='unicode_fullwidth_open'),
    pytest.param("__ｉｍｐｏｒｔ__('os')",
                 "NameError: name '__ｉｍｐｏｒｔ__' is not defined", id='unicode_fullwidth_import'),
    pytest.param("𝐞𝐱𝐞𝐜('x = 1')",
                 "NameError: name '𝐞𝐱𝐞𝐜' is not defined", id='unicode_bold_exec'),
    pytest.param('(1).__ｃｌａｓｓ__',
                 "AttributeError: 'int' object has no attribute", id='unicode_fullwidth_dunder_attribute'),
    pytest.param('(1).__𝘤𝘭𝘢𝘴𝘴__',
                 "AttributeError: 'int' object has no attribute '__𝘤𝘭𝘢𝘴𝘴__'", id='unicode_italic_dunder_attribute'),
    pytest.param('x = tensor([1.])\nx._ｄａｔａ',
                 "AttributeError: 'Tensor' object has no attribute '_ｄａｔａ'", id='unicode_fullwidth_private'),
    pytest.param('try:\n    1 / 0\nexcept Exception as e:\n    e._ｇｒａｄｃｌｉ_span',
                 "AttributeError: 'ZeroDivisionError' object has no attribute", id='unicode_gradcli_private'),
    pytest.param("getattr(1, '__ｃｌａｓｓ__')",
                 "AttributeError: 'int' object has no attribute '__ｃｌａｓｓ__'", id='unicode_getattr_string'),
    pytest.param('import ｏｓ',
                 "ModuleNotFoundError: No module named 'ｏｓ'", id='unicode_import_os'),
    pytest.param('__ｂｕｉｌｔｉｎｓ__',
                 "NameError: name '__ｂｕｉｌｔｉｎｓ__' is not defined", id='unicode_builtins'),
    pytest.param('ｇｌｏｂａｌｓ()',
                 "NameError: name 'ｇｌｏｂａｌｓ' is not defined", id='unicode_globals'),
    pytest.param('import torch\ntorch.__ﬁle__',
                 "AttributeError: module 'torch' has no attribute '__ﬁle__'", id='unicode_ligature_file'),
    pytest.param('x₁ = 1\nx₁.__class__',
                 "AttributeError: 'int' object has no attribute '__class__'", id='unicode_subscript_digit_name'),
    pytest.param('x = 1\x00\n',
                 'SyntaxError: source code cannot contain null bytes', id='null_byte_in_source'),
    pytest.param("getattr(1, '\\x5f\\x5fclass\\x5f\\x5f')",
                 "AttributeError: 'int' object has no attribute '__class__'", id='string_escape_builtins'),
    pytest.param("getattr(1, '__cl' + 'ass__')",
                 "AttributeError: 'int' object has no attribute '__class__'", id='string_concat_attribute'),
    pytest.param("getattr(1, ''.join(['__', 'class', '__']))",
                 "AttributeError: 'int' object has no attribute '__class__'", id='string_join_attribute'),
    pytest.param("getattr(1, chr(95) * 2 + 'class' + chr(95) * 2)",
                 "AttributeError: 'int' object has no attribute '__class__'", id='chr_built_attribute'),
    pytest.param('getattr = lambda o, n: 1\n(1).__class__',
                 "AttributeError: 'int' object has no attribute '__class__'", id='rebinding_getattr_noop'),
    pytest.param('type = 1\nimport torch\ntorch.__dict__',
                 "AttributeError: module 'torch' has no attribute '__dict__'", id='shadow_type_builtin'),
]


@pytest.mark.parametrize("code, expected", ATTACKS)
def test_names_attack_is_refused(sandboxed, code, expected):
    assert_refused(code, expected)


CLI_ATTACKS = [
    ("().__class__.__bases__[0].__subclasses__()\n", "AttributeError: 'tuple' object has no attribute '__class__'"),
    ("import torch\ntorch.load('model.pt')\n", "NotImplementedError: gradcli does not support torch.load yet"),
    ("@type\ndef f():\n    pass\nf(1)\n", "TypeError: cannot create 'function' instances"),
]


def test_attacks_through_the_command_line(sandboxed):
    """A few of the attempts above through ``gradcli run`` itself, in a process of its own."""
    root = Path(__file__).resolve().parents[2]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    for index, (code, expected) in enumerate(CLI_ATTACKS):
        script = sandboxed.parent / f"attack{index}.ag"    # (outside the directory that must stay empty)
        script.write_text(code)
        done = subprocess.run([sys.executable, "-m", "gradcli", "run", str(script)], capture_output=True, text=True,
                              env=environment, cwd=sandboxed, timeout=120)
        assert done.returncode == 1, done.stderr
        first = done.stderr.splitlines()[0]
        assert first.startswith(f"{script}:") and first.endswith(expected), done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
