"""The graph view names a saved input as PyTorch's node does (``_saved_input`` of a convolution)."""

from __future__ import annotations

from gradcli.views.graph import graph_text
from gradcli.views.script_run import run_for_view


def test_the_graph_view_names_the_saved_input_as_pytorch_does() -> None:
    source = ("import torch\nimport torch.nn.functional as F\nx = torch.ones(1, 1, 4, 4, requires_grad=True)\n"
              "w = torch.ones(1, 1, 2, 2, requires_grad=True)\ny = F.conv2d(x, w)\n")
    view = run_for_view(source, "conv.ag")
    tree = graph_text([("y", view.session.globals["y"])], view.provenance, show_rules=False)
    assert "_saved_input = x" in tree and "_saved_weight = w" in tree and "_saved_self" not in tree
