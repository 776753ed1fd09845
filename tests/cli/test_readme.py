"""The README shows the real help, keeps its two set-up commands, and links only inside the repository."""

from __future__ import annotations

import re

import pytest

from cli_helpers import ROOT, command_names, gradcli_process

README = (ROOT / "README.md").read_text(encoding="utf-8")
HELP_BLOCK = re.compile(r"^```\n\$ gradcli ((?:\w+ )?)--help\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def shown_help() -> dict[str, str]:
    """Command ("" for gradcli itself) -> the help text the README shows for it."""
    return {match.group(1).strip(): match.group(2) for match in HELP_BLOCK.finditer(README)}


def test_the_readme_shows_the_help_of_gradcli_and_of_every_command():
    assert sorted(shown_help()) == sorted(["", *command_names()])


@pytest.mark.parametrize("command", ["", "run", "eval", "repl"], ids=lambda c: c or "gradcli")
def test_the_help_in_the_readme_is_the_real_one(command):
    real = gradcli_process(*command.split(), "--help").stdout          # 80 columns, NO_COLOR=1
    real = "\n".join(line.rstrip() for line in real.splitlines()).strip("\n") + "\n"
    assert shown_help()[command] == real, (
        f"README.md shows an old `gradcli {command} --help`: paste the output of "
        f"`COLUMNS=80 NO_COLOR=1 gradcli {command} --help`, trailing spaces and blank first line removed")


def test_the_readme_help_has_no_type_placeholders():
    for text in shown_help().values():
        assert not re.search(r"<(bool|str|int|float)>|\{FILE\}|\{CODE\}", text)


def test_the_two_set_up_commands_are_unchanged():
    commands = [line for line in README.splitlines() if line.startswith("pip install")]
    assert commands == ["pip install . && gradcli run samples/autograd_tutorial.ag",
                        "pip install '.[test]' && pytest"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "grep -m1 -E \"^pip install '\\.\\[test\\]'\" README.md" in ci


def test_links_stay_inside_the_repository():
    links = re.findall(r"\]\(([^)]+)\)", README)
    assert links, "the README links to the grammar and its own sections"
    headings = {_anchor(line.lstrip("#").strip()) for line in README.splitlines() if line.startswith("#")}
    for link in links:
        assert not re.match(r"[a-z]+:", link), f"{link}: links leave the repository"
        if link.startswith("#"):
            assert link[1:] in headings, link
        else:
            assert (ROOT / link).exists(), link


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
