"""Parse trees cached on disk (lang/tree_cache.py): a second run of a script reads its trees
instead of parsing, and must print exactly what the first printed -- values, error messages and
their carets (which need every token's end position) -- whatever state the cache is in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = '''import torch
x = torch.ones(2, 2, requires_grad=True)
out = (x * 3).sum()
out.backward()
print(f"out = {out.item():.3f}, grad = {x.grad.tolist()}")
label = "sum"
print(f"{label!r:>8} {x.grad.sum().item() / 4:6.2f}")
print(x.grad.reshape(3, 5))
'''


def run(path: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "NO_COLOR": "1"}
    env.pop("GRADCLI_NO_TREE_CACHE", None)
    return subprocess.run([sys.executable, "-m", "gradcli", "run", str(path)], capture_output=True, text=True,
                          env=env, timeout=60)


def trees(cache: Path) -> list[Path]:
    return sorted((cache / "gradcli" / "trees").glob("*.tree"))


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "cached.ag"
    path.write_text(SCRIPT)
    return path


def test_a_second_run_reads_its_trees_and_prints_the_same(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run(script, cache)
    assert first.returncode == 1 and "RuntimeError: shape '[3, 5]' is invalid" in first.stderr
    assert "^" in first.stderr  # the caret under the failing call
    stored = trees(cache)
    assert len(stored) >= 3  # the script and its f-string fields
    second = run(script, cache)
    assert (second.stdout, second.stderr, second.returncode) == (first.stdout, first.stderr, first.returncode)
    assert trees(cache) == stored


def test_the_cached_tree_keeps_every_position(script: Path) -> None:
    from lark import Token

    from gradcli.lang import tree_cache
    from gradcli.lang.grammar_loader import get_parser
    import pickle
    tree = get_parser().parse(SCRIPT, start="file_input")
    again = pickle.loads(tree_cache._dumps(tree))
    fields = ("type", "start_pos", "line", "column", "end_line", "end_column", "end_pos")
    ours = [tuple(getattr(t, f) for f in fields) for t in tree.scan_values(lambda v: isinstance(v, Token))]
    back = [tuple(getattr(t, f) for f in fields) for t in again.scan_values(lambda v: isinstance(v, Token))]
    assert ours == back and again == tree


def test_an_edited_script_is_parsed_again(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run(script, cache)
    script.write_text(SCRIPT.replace("reshape(3, 5)", "reshape(4)"))
    done = run(script, cache)
    assert done.returncode == 0 and "tensor([3., 3., 3., 3.])" in done.stdout


def test_a_damaged_cache_only_means_parsing(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run(script, cache)
    for stored in trees(cache):
        stored.write_bytes(b"not a pickle")
    again = run(script, cache)
    assert (again.stdout, again.stderr) == (first.stdout, first.stderr)


def test_an_unwritable_cache_folder_only_means_parsing(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.write_text("a file where the folder would be")
    done = run(script, cache)
    assert "out = 12.000" in done.stdout and "Traceback" not in done.stderr


def test_the_folder_keeps_only_the_newest_trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcli.lang import tree_cache
    monkeypatch.setattr(tree_cache, "LIMIT", 3)
    monkeypatch.setattr(tree_cache, "_folder", str(tmp_path))
    for i in range(6):
        tree_cache.cached_parse(f"x = {i}\n", "file_input", lambda: ("tree", i))
        os.utime(tmp_path / (tree_cache._key(f"x = {i}\n", "file_input") + ".tree"), (i, i))
    assert len(list(tmp_path.glob("*.tree"))) <= 4
    assert tree_cache.cached_parse("x = 5\n", "file_input", lambda: "parsed") == ("tree", 5)
