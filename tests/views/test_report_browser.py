"""The report page in a real browser: headless Chromium from the system packages, driven by
Selenium with the system's chromedriver (Selenium Manager never downloads anything).

Skipped on a machine without Chromium, but never in CI: ``.ci/run`` sets GRADCLI_CI and installs
``chromium`` and ``chromium-driver`` when they are missing, and there a missing browser fails.
Set GRADCLI_SCREENSHOTS=DIR to keep the screenshots.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from gradcli.views.report.build import build_report
from view_scripts import TUTORIAL_SOURCE

CHROMIUM = os.environ.get("GRADCLI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("GRADCLI_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
IN_CI = bool(os.environ.get("GRADCLI_CI"))
HAVE_BROWSER = os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)

if not HAVE_BROWSER and not IN_CI:
    pytest.skip(f"no Chromium ({CHROMIUM}) or chromedriver ({CHROMEDRIVER}) here", allow_module_level=True)

TUTORIAL = TUTORIAL_SOURCE
FAILING = """\
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
print('before the error')
y.backward()
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    assert HAVE_BROWSER, (f"CI (GRADCLI_CI is set) must have Chromium at {CHROMIUM} and chromedriver at "
                          f"{CHROMEDRIVER}: .ci/run installs them with apt-get")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--window-size=1280,1600",
                     f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the driver's path given: Selenium Manager is not asked to find (or download) one
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def open_report(browser, tmp_path: Path, text: str, name: str = "script.ag"):
    page = build_report(text, name, stderr=io.StringIO())
    path = tmp_path / "report.html"
    path.write_text(page.html, encoding="utf-8")
    browser.get_log("browser")          # (forget what an earlier page logged)
    browser.get(path.as_uri())
    return page


def console_errors(browser) -> list[dict]:
    return [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]


def keep_screenshot(png: bytes, name: str) -> None:
    folder = os.environ.get("GRADCLI_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(png)


def colours(png: bytes) -> int:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    found = image.getcolors(maxcolors=1 << 24)
    return len(found)


def test_the_page_loads_without_a_console_error_or_any_fetch(browser, tmp_path):
    page = open_report(browser, tmp_path, TUTORIAL)
    assert browser.title == "script.ag - gradcli report"
    assert console_errors(browser) == []
    # nothing fetched: every style, script and picture is in the page
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    shown = [s.get_attribute("id") for s in browser.find_elements("css selector", "main > section")]
    assert shown == [s.id for s in page.sections]
    assert {"script", "output", "variables"} <= set(shown)
    script_lines = browser.find_elements("css selector", "#script .src")
    assert [line.text for line in script_lines] == TUTORIAL.rstrip("\n").split("\n")
    assert "tensor([[4.5000, 4.5000]," in browser.find_element("css selector", "#output pre.stdout").text
    embedded = json.loads(browser.execute_script("return document.getElementById('run-data').textContent"))
    assert embedded["status"] == "ok" and embedded["output"][-2:] == ["tensor([[4.5000, 4.5000],",
                                                                       "        [4.5000, 4.5000]])"]


def test_a_screenshot_is_not_blank(browser, tmp_path):
    open_report(browser, tmp_path, TUTORIAL)
    png = browser.get_screenshot_as_png()
    keep_screenshot(png, "report_tutorial.png")
    assert png.startswith(b"\x89PNG") and colours(png) > 1


def backward_nodes(tensor) -> int:
    """How many nodes the engine's graph below ``tensor`` has (each once, however often reached)."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(child for child, _ in node.next_functions)
    return len(seen)


@pytest.mark.parametrize("layout", ["auto", "python"])
def test_the_graph_has_one_box_per_backward_node(browser, tmp_path, monkeypatch, layout):
    if layout == "python":
        monkeypatch.setenv("GRADCLI_NO_DOT", "1")     # grandalf's layout, as on a machine without dot
    page = open_report(browser, tmp_path, TUTORIAL)
    assert console_errors(browser) == []
    expected = backward_nodes(page.run.session.globals["out"])
    assert expected == 5                     # MeanBackward0, MulBackward0 x2, AddBackward0, AccumulateGrad
    boxes = browser.find_elements("css selector", "#graph svg g.node.backward")
    assert len(boxes) == expected
    texts = {box: [t.get_attribute("textContent") for t in box.find_elements("css selector", "text")]
             for box in boxes}
    assert sorted(lines[0] for lines in texts.values()) == [
        "AccumulateGrad", "AddBackward0", "MeanBackward0", "MulBackward0", "MulBackward0"]
    # the script's words and names on the picture
    assert ["AddBackward0", "y = x + 2", "line 3", "(2, 2) float32"] in texts.values()
    assert ["MeanBackward0", "out = z.mean()", "line 5", "() float32"] in texts.values()
    first_text = "return arguments[0].querySelector('text').textContent"
    output = browser.find_element("css selector", "#graph svg g.node.tensor.output")
    leaf = browser.find_element("css selector", "#graph svg g.node.tensor.leaf")
    assert browser.execute_script(first_text, output) == "out"
    assert browser.execute_script(first_text, leaf) == "x"
    svg = browser.find_element("css selector", "#graph svg")
    assert svg.is_displayed() and svg.size["width"] > 100 and svg.size["height"] > 100
    keep_screenshot(svg.screenshot_as_png, f"report_graph_{layout}.png")


def test_a_line_and_the_nodes_it_made_mark_each_other_on_hover(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains

    open_report(browser, tmp_path, TUTORIAL)
    lit = "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.id || e.textContent)"
    number = browser.find_element("css selector", "#L4")           # z = y * y * 3: two MulBackward0
    assert "made" in number.get_attribute("class").split()
    ActionChains(browser).move_to_element(number).perform()
    marked = browser.find_elements("css selector", "#graph g.node.backward.lit")
    assert len(marked) == 2 and all(m.get_attribute("data-line") == "4" for m in marked)
    add = next(box for box in browser.find_elements("css selector", "#graph g.node.backward")
               if box.get_attribute("data-line") == "3")
    ActionChains(browser).move_to_element(add).perform()
    assert browser.find_elements("css selector", "#graph g.node.backward.lit") == []
    assert browser.execute_script(lit, ".script .lit") == ["L3", "y = x + 2"]
    assert console_errors(browser) == []


def test_a_failing_script_shows_its_error_at_its_line(browser, tmp_path):
    page = open_report(browser, tmp_path, FAILING)
    assert page.exit_code == 1 and console_errors(browser) == []
    box = browser.find_element("css selector", "#diagnostics .diagnostic")
    assert box.find_element("css selector", ".headline").text == (
        "RuntimeError: grad can be implicitly created only for scalar outputs")
    assert box.find_element("css selector", ".hint").text.startswith("backward() needs a single number")
    marked = browser.find_elements("css selector", "#script .src.error-line")
    assert [line.text for line in marked] == ["y.backward()"]
    assert browser.find_element("css selector", "header .status").text == "stopped by an error"
    keep_screenshot(browser.get_screenshot_as_png(), "report_error.png")
