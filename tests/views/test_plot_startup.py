"""A plain ``gradcli run`` loads none of the plot view: not plotille, not Pillow, not gradcli.views;
importing matplotlib.pyplot loads the shim only when a member is read, plotille only at show()."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# runs gradcli's own entry in a fresh interpreter, then reports which of these modules it loaded
PROBE = """\
import json, sys
from gradcli.cli import run_file
code = run_file(sys.argv[1])
sys.stdout.flush()
watched = ("plotille", "PIL", "gradcli.views")
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in watched or m.startswith(watched))]))
"""


def loaded_by(tmp_path: Path, text: str) -> tuple[int, list[str]]:
    script = tmp_path / "s.ag"
    script.write_text(text)
    result = subprocess.run([sys.executable, "-c", PROBE, str(script)], capture_output=True, text=True,
                            env={"PYTHONPATH": str(ROOT), "NO_COLOR": "1"}, timeout=60, cwd=tmp_path)
    code, modules = json.loads(result.stdout.splitlines()[-1])
    return code, modules


def test_a_plain_run_loads_no_plotting(tmp_path):
    code, modules = loaded_by(tmp_path, "import torch\nx = torch.ones(2, requires_grad=True)\n"
                                        "(x * x).sum().backward()\nprint(x.grad)\n")
    assert (code, modules) == (0, [])


def test_importing_pyplot_alone_loads_nothing_yet(tmp_path):
    code, modules = loaded_by(tmp_path, "import matplotlib.pyplot as plt\nprint(plt)\n")
    assert (code, modules) == (0, [])


def test_plotting_loads_the_shim_then_plotille_at_show(tmp_path):
    code, modules = loaded_by(tmp_path, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n")
    assert code == 0
    assert "gradcli.views.plot.pyplot" in modules
    assert not any(m.startswith(("plotille", "PIL")) for m in modules)
    code, modules = loaded_by(tmp_path, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n")
    assert code == 0
    assert "plotille" in modules and not any(m.startswith("PIL") for m in modules)
