"""The engine's imports point one way: what each layer may import, checked on the source.

kernels, printing, random  pure NumPy (no Tensor)
tensor                     the value; reaches autograd only through its bottom imports
autograd                   graph recording and the backward pass: imports no op
dispatch                   the op record, its forms, the runner; imports no op family
ops -> nn -> transforms    op definitions, torch.nn.functional, function transforms
optim                      torch.optim: tensor, ops, autograd, dispatch; loaded lazily, by api alone
install, api               publish everything / what a front end sees

Every import is counted, at module level or inside a function, so a cycle cannot hide in a
function-local import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "gradcli" / "engine"
PURE = ("kernels", "printing", "random")
LEAVES = ("errors", "warnings", "dtypes", "device", "layout", "size", "shape_rules", "budget")

# For each layer (a folder, or a module of engine/ itself), the engine parts it may not import.
FORBIDDEN = {
    "kernels": {"tensor", "autograd", "dispatch", "ops", "nn", "transforms", "install", "api", "random",
                "printing"},
    "printing": {"tensor", "autograd", "dispatch", "ops", "nn", "transforms", "install", "api", "random"},
    "random": {"tensor", "autograd", "dispatch", "ops", "nn", "transforms", "install", "api", "printing"},
    "autograd": {"dispatch", "ops", "nn", "transforms", "install", "api"},
    "dispatch": {"ops", "nn", "transforms", "install", "api"},
    "ops": {"nn", "transforms", "install", "api"},
    "nn": {"transforms", "install", "api"},
    "transforms": {"install", "api"},
    "tensor": {"dispatch", "ops", "nn", "transforms", "install", "api"},
    "optim": {"nn", "transforms", "install", "api"},
}
# torch.optim loads on first use (api.LAZY_SUBMODULES): nothing but api may import it.
for _layer_name in [*FORBIDDEN, "install", *LEAVES]:
    if _layer_name != "optim":
        FORBIDDEN.setdefault(_layer_name, set()).add("optim")


def _engine_imports(path: Path) -> set[str]:
    """The first part below ``gradcli.engine`` of every module ``path`` imports ("ops", "tensor")."""
    package = path.relative_to(ENGINE).parent.parts
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[:len(package) - (node.level - 1)]) if node.level > 1 else list(package)
                parts = base + (node.module.split(".") if node.module else [])
                names = [parts + [alias.name] for alias in node.names] if not node.module else [parts]
            elif (node.module or "").startswith("gradcli.engine"):
                parts = node.module.split(".")[2:]
                names = [parts + [alias.name] for alias in node.names] if not parts else [parts]
            else:
                continue
            found.update(name[0] for name in names if name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("gradcli.engine."):
                    found.add(alias.name.split(".")[2])
    return found


def _layer(path: Path) -> str:
    rel = path.relative_to(ENGINE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


MODULES = sorted(p for p in ENGINE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_imports_point_one_way(path: Path) -> None:
    layer = _layer(path)
    bad = _engine_imports(path) & FORBIDDEN.get(layer, set())
    assert not bad, f"{path.relative_to(ENGINE)} ({layer}) imports {sorted(bad)}"


@pytest.mark.parametrize("path", [p for p in MODULES if _layer(p) in LEAVES], ids=lambda p: p.name)
def test_leaf_modules_import_only_leaves(path: Path) -> None:
    assert _engine_imports(path) <= set(LEAVES) | {"errors"}, path.name


def test_the_engine_knows_nothing_of_the_language() -> None:
    for path in MODULES:
        text = path.read_text(encoding="utf-8")
        for name in ("gradcli.lang", "gradcli.repl", "gradcli.cli"):
            assert name not in text, f"{path.relative_to(ENGINE)} names {name}"


def test_only_api_imports_optim() -> None:
    importers = {str(p.relative_to(ENGINE)) for p in MODULES
                 if "optim" in _engine_imports(p) and _layer(p) != "optim"}
    assert importers == {"api.py"}


def test_the_checker_sees_imports() -> None:
    # the rule above would pass vacuously if the parser missed relative imports
    assert {"dispatch", "autograd", "tensor"} <= _engine_imports(ENGINE / "ops" / "arithmetic.py")
    assert "autograd" in _engine_imports(ENGINE / "tensor.py")


def test_every_engine_module_imports_on_its_own() -> None:
    """Whatever is imported first, the cycle between tensor and autograd resolves."""
    import subprocess
    import sys
    names = sorted({".".join(("gradcli", "engine") + p.relative_to(ENGINE).with_suffix("").parts)
                    .removesuffix(".__init__") for p in MODULES})
    program = (
        "import importlib, sys\n"
        "failed = []\n"
        f"for name in {names!r}:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('gradcli')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        failed.append(f'{name}: {type(error).__name__}: {error}')\n"
        "print('\\n'.join(failed))\n")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
