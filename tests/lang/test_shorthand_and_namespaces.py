"""Names without import, the grad word, function forms, builtin/torch dispatch, imports, echo."""

from __future__ import annotations


def test_grad_word_in_factories_and_as_function(run):
    result = run("a = ones(2, grad)\nb = tensor([1.], grad)\nc = ones(2)\n"
                 "print(a.requires_grad, b.requires_grad, c.requires_grad)\nprint(grad(a, b))\n")
    assert result.out == "True True False\n('grad of', tensor([1.0, 1.0]), tensor([1.0]))\n"


def test_grad_word_through_torch_namespace(run):
    result = run("import torch\nprint(torch.tensor([1.], grad).requires_grad)\n")
    assert result.out == "True\n"


def test_grad_word_conflicting_with_keyword(run):
    result = run("ones(2, grad, requires_grad=True)\n")
    assert result.headline == "TypeError: ones() got multiple values for argument 'requires_grad'"


def test_method_function_forms(run):
    result = run("x = tensor([1., 3.])\nprint(mean(x), tolist(x))\nbackward(sum(x))\n")
    assert result.out == "tensor([2.0]) [1.0, 3.0]\n"
    assert result.code == 0


def test_method_form_on_wrong_type(run):
    result = run("mean(3)\n")
    assert result.headline == "AttributeError: 'int' object has no attribute 'mean'"


def test_tensor_first_argument_selects_torch_function(run):
    result = run("print(sum([1, 2, 3]), sum(tensor([1., 2.])), sum([1], 10))\n")
    assert result.out == "6 tensor([3.0]) 11\n"


def test_dtype_name_shared_with_method_is_the_method_form(run):
    result = run("print(double(tensor([1, 2])), float32)\n")
    assert result.out == "tensor([1.0, 2.0]) torch.float32\n"


def test_imports(run):
    result = run("import torch\nimport torch.nn.functional as F\nimport torch.autograd as autograd\n"
                 "from torch.autograd import grad as g\nimport math\nfrom math import sqrt\n"
                 "print(F.relu(2), g(1, 2), sqrt(16), torch.__version__, torch.nn.functional is F)\n"
                 "print(torch, type(math))\n")
    assert result.out == ("2 ('grad of', 1, 2) 4.0 2.13.0+cpu True\n"
                          "<module 'torch'> <class 'module'>\n")


def test_import_binds_top_level_package(run):
    result = run("import torch.nn.functional\nprint(torch.nn.functional.relu(3))\n")
    assert result.out == "3\n"


def test_unsupported_and_missing_names(run):
    assert run("import torch\ntorch.fft\n").headline == \
        "NotImplementedError: gradcli does not support torch.fft yet"
    assert run("import torch.nn as nn\nnn.Linear(2, 2)\n").headline == \
        "NotImplementedError: gradcli does not support torch.nn.Linear yet"
    assert run("import torch\ntorch.no_such_thing\n").headline == \
        "AttributeError: module 'torch' has no attribute 'no_such_thing'"
    assert run("from torch import nothing_here\n").headline == \
        "ImportError: cannot import name 'nothing_here' from 'torch' (unknown location)"
    assert run("from torch.autograd import Function\n").headline == \
        "NotImplementedError: gradcli does not support torch.autograd.Function yet"
    assert run("import torch.fft\n").headline == "NotImplementedError: gradcli does not support torch.fft yet"
    assert run("import torch.nope\n").headline == "ModuleNotFoundError: No module named 'torch.nope'"


def test_the_pytorch_names_table_is_read_only_when_a_name_is_missing():
    # Start-up never pays for the table: it is imported on the first missing name.
    import subprocess
    import sys
    from pathlib import Path
    code = ("import io, sys\n"
            f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
            "import fake_engine\n"
            "from gradcli.lang import Session\n"
            "session = Session(engine=fake_engine.make_engine(), stdout=io.StringIO(), stderr=io.StringIO())\n"
            "session.run_source('import torch\\nx = torch.ones(2)\\n', 't.ag')\n"
            "print('gradcli.lang.pytorch_names' in sys.modules)\n"
            "session.run_source('torch.fft', 't.ag')\n"
            "print('gradcli.lang.pytorch_names' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout == "False\nTrue\n"


def test_missing_torch_import_hint(run):
    result = run("torch.ones(2)\n")
    assert result.err.splitlines()[-1].startswith("hint: add `import torch` at the top")


def test_grad_mode_context_manager_and_decorator(run):
    result = run("import torch\nwith torch.no_grad():\n    print('in')\n"
                 "@torch.no_grad()\ndef f(x):\n    return x + 1\nprint(f(1))\n")
    assert result.out == "in\n2\n"


def test_echo_all_and_last(run):
    code = "1 + 1\nNone\nx = 5\nfor i in range(2): i\ndef f():\n    7\nf()\n'text'\n"
    assert run(code, echo="all").out == "2\n0\n1\n'text'\n"
    assert run(code, echo="last").out == "'text'\n"
    assert run(code).out == ""


def test_session_keeps_variables_between_entries():
    import io

    import fake_engine
    from gradcli.lang import Session
    out = io.StringIO()
    session = Session(engine=fake_engine.make_engine(), stdout=out, stderr=io.StringIO())
    session.run_source("x = 41\ndef f():\n    return x + 1\n", "<stdin>")
    session.run_source("oops(", "<stdin>")
    session.run_source("missing", "<stdin>")
    outcome = session.run_source("f()", "<stdin>", echo="all")
    assert outcome.exit_code == 0
    assert out.getvalue() == "42\n"
