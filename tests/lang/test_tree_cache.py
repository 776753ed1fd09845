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
    import pickle

    from gradcli.lang.syntax import parse
    from gradcli.lang.syntax_tree import Token
    tree = parse(SCRIPT)
    again = pickle.loads(pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
    fields = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")
    ours = [tuple(getattr(t, f) for f in fields) for t in tree.scan_values(lambda v: isinstance(v, Token))]
    back = [tuple(getattr(t, f) for f in fields) for t in again.scan_values(lambda v: isinstance(v, Token))]
    assert ours == back and again == tree
    assert [_positions(node.meta) for node in tree.iter_subtrees()] == \
        [_positions(node.meta) for node in again.iter_subtrees()]


def _positions(meta: object) -> tuple:
    names = ("empty", "line", "column", "start_pos", "end_line", "end_column", "end_pos")
    return tuple(getattr(meta, name, None) for name in names)


def _describe(node: object) -> tuple:
    """A node as plain data: what the compiler reads of it (Lark's classes or ours)."""
    if hasattr(node, "data"):
        return ("tree", str(node.data), _positions(node.meta))
    if node is None:
        return (None,)
    return ("token", node.type, str(node), node.start_pos, node.line, node.column, node.end_line,
            node.end_column, node.end_pos)


SCRIPTS = sorted([*(Path(__file__).parents[2] / "samples").glob("*.ag"),
                  *(Path(__file__).parents[2] / "bench" / "workloads").glob("*.ag")])


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.name)
def test_the_tree_the_compiler_reads_is_larks_tree(path: Path) -> None:
    """syntax_tree's classes hold what Lark's held, and walk it in Lark's orders."""
    from lark import Token as LarkToken

    from gradcli.lang.grammar_loader import get_parser
    from gradcli.lang.syntax_tree import Token, from_lark
    text = path.read_text(encoding="utf-8-sig")
    lark_tree = get_parser().parse(text if text.endswith("\n") else text + "\n", start="file_input")
    tree = from_lark(lark_tree)
    assert [_describe(n) for n in tree.iter_subtrees()] == [_describe(n) for n in lark_tree.iter_subtrees()]
    assert [_describe(n) for n in tree.iter_subtrees_topdown()] == \
        [_describe(n) for n in lark_tree.iter_subtrees_topdown()]
    assert [_describe(t) for t in tree.scan_values(lambda v: isinstance(v, Token))] == \
        [_describe(t) for t in lark_tree.scan_values(lambda v: isinstance(v, LarkToken))]
    assert [_describe(v) for v in tree.scan_values(lambda v: v is None)] == \
        [_describe(v) for v in lark_tree.scan_values(lambda v: v is None)]
    for ours, theirs in zip(tree.iter_subtrees(), lark_tree.iter_subtrees()):
        assert [_describe(c) for c in ours.children] == [_describe(c) for c in theirs.children]


def test_tokens_compare_as_larks_do() -> None:
    from gradcli.lang.syntax_tree import Token
    name, string = Token("NAME", "x"), Token("STRING", "x")
    assert name == "x" and "x" == name and hash(name) == hash("x")
    assert name != string and name == Token("NAME", "x", 0, 1, 1)
    assert repr(name) == "Token('NAME', 'x')" and str(name) == "x" and type(str(name)) is str


def test_a_cached_run_never_imports_lark(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    probe = ("import sys; from gradcli.cli import run_file; code = run_file(sys.argv[1]); "
             "sys.stdout.flush(); print('lark' in sys.modules, file=sys.stderr)")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "NO_COLOR": "1"}
    env.pop("GRADCLI_NO_TREE_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", probe, str(script)], capture_output=True, text=True, env=env,
                           timeout=60) for _ in range(2)]
    first, second = (run.stderr.strip().splitlines()[-1] for run in runs)
    assert (first, second) == ("True", "False")
    assert runs[0].stdout == runs[1].stdout and "out = 12.000" in runs[0].stdout
    assert runs[0].stderr.splitlines()[:-1] == runs[1].stderr.splitlines()[:-1]


def test_the_key_is_gradclis_version_the_grammar_lark_and_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    import gradcli
    from gradcli.lang import tree_cache

    def key(text: str = "x = 1\n", start: str = "file_input") -> str:
        tree_cache._key.cache_clear()
        monkeypatch.setattr(tree_cache, "_salt", None)
        return tree_cache._key(text, start)

    first = key()
    assert key() == first
    assert key("x = 2\n") != first and key(start="field_input") != first
    monkeypatch.setattr(gradcli, "__version__", gradcli.__version__ + ".post1")
    assert key() != first
    monkeypatch.undo()
    monkeypatch.setattr(tree_cache, "FORMAT", tree_cache.FORMAT + b"+")
    assert key() != first
    monkeypatch.undo()
    monkeypatch.setattr(tree_cache, "_lark_identity", lambda: b"__version__ = '99.0'")
    assert key() != first
    monkeypatch.undo()
    tree_cache._key.cache_clear()
    tree_cache._salt = None


def test_a_tree_stored_by_another_gradcli_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gradcli
    from gradcli.lang import tree_cache
    monkeypatch.setattr(tree_cache, "_folder", str(tmp_path))
    monkeypatch.setattr(tree_cache, "_salt", None)
    tree_cache._key.cache_clear()
    assert tree_cache.cached_parse("y = 1\n", "file_input", lambda: "old") == "old"
    assert tree_cache.cached_parse("y = 1\n", "file_input", lambda: "unused") == "old"
    monkeypatch.setattr(gradcli, "__version__", gradcli.__version__ + ".post1")
    monkeypatch.setattr(tree_cache, "_salt", None)
    tree_cache._key.cache_clear()
    assert tree_cache.cached_parse("y = 1\n", "file_input", lambda: "new") == "new"
    tree_cache._key.cache_clear()


def test_an_edited_script_is_parsed_again(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run(script, cache)
    script.write_text(SCRIPT.replace("reshape(3, 5)", "reshape(4)"))
    done = run(script, cache)
    assert done.returncode == 0 and "tensor([3., 3., 3., 3.])" in done.stdout


def test_a_damaged_cache_only_means_parsing(script: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run(script, cache)
    for damage in (lambda data: b"not a pickle", lambda data: data[: len(data) // 2], lambda data: b""):
        for stored in trees(cache):
            stored.write_bytes(damage(stored.read_bytes()))
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
