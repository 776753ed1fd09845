"""Helpers for the graph view's tests: run a script for the view, draw its tensors."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from gradcli.views.graph import graph_model, graph_text
from gradcli.views.script_run import run_for_view

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "samples" / "autograd_tutorial.ag"
NODE_LINE = re.compile(r"(?<!see )\[(\d+)\] (\S+)")


def run(source: str, filename: str = "test.ag"):
    """The ViewRun of ``source`` (dedented; ``import torch`` added)."""
    text = "import torch\n" + textwrap.dedent(source).strip() + "\n"
    return run_for_view(text, filename)


def draw(view_run, *names: str, **options) -> str:
    """The plain tree of ``names`` (rules left out: their words are the engine's)."""
    options.setdefault("show_rules", False)
    return graph_text([(n, view_run.session.globals[n]) for n in names], view_run.provenance, **options)


def node_names(tree: str) -> list[str]:
    """The node names of a drawn tree in the order drawn (each node once)."""
    return [match.group(2) for match in NODE_LINE.finditer(tree)]


def model_of(view_run, *names: str):
    return graph_model([(n, view_run.session.globals[n]) for n in names], view_run.provenance)
