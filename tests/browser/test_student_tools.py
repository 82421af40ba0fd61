"""The student's JupyterLab without a Hub: Validate, in Chinese, and none of nbgrader's other tools.

`make lab` (the `lab` fixture) starts JupyterLab as the student bundle's lab.py does, with the
bundle's configuration only (student_bundle/jupyter_config): the Create Assignment, Formgrader
and Course List plugins are disabled, and so are the Assignment List and the Nbgrader menu (no
exchange without the Hub); their server extensions are off. The interface is the zh_CN language
pack, no news pop-up appears, and custom.css puts Validate's words in Chinese.
"""
import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import expect

from student import small_png

NOTEBOOK = "resume-from-checkpoint.ipynb"
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CONFIG = Path(__file__).resolve().parents[2] / "student_bundle" / "jupyter_config"
INSTRUCTOR_PLUGINS = {"@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader",
                      "@jupyter/nbgrader:course-list"}
EXCHANGE_PLUGINS = {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu"}


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture(scope="module")
def lab_page(page, lab):
    page.goto(f"{lab['url']}/lab/tree/{NOTEBOOK}?token={lab['token']}")
    expect(page.locator(".jp-Notebook .jp-Cell").first).to_be_visible(timeout=60_000)
    return page


def test_page_config_disables_every_nbgrader_plugin_but_validate(lab):
    with urllib.request.urlopen(f"{lab['url']}/lab?token={lab['token']}", timeout=10) as reply:
        html = reply.read().decode()
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  html, re.DOTALL).group(1))
    disabled = set(config["disabledExtensions"])
    assert INSTRUCTOR_PLUGINS | EXCHANGE_PLUGINS <= disabled
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    shipped = [json.loads((CONFIG / folder / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
               for folder in (".", "no-hub")]
    assert [set(found) for found in shipped] == [INSTRUCTOR_PLUGINS, EXCHANGE_PLUGINS]  # the Hub reads only the first


def test_the_lab_is_in_chinese_without_a_news_pop_up(lab_page, artifacts):
    menus = [text.strip() for text in lab_page.locator(".lm-MenuBar-itemLabel").all_text_contents()]
    assert "文件" in menus and "File" not in menus, menus
    assert "Nbgrader" not in menus, menus
    lab_page.wait_for_timeout(3000)  # the news question appears a moment after the page
    assert lab_page.locator(".Toastify__toast").count() == 0, lab_page.locator(".Toastify__toast").all_inner_texts()
    shot = artifacts / "student-lab-zh-cn.png"
    lab_page.screenshot(path=str(shot))
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        small_png(Image.open(shot), DOCS_SCREENSHOTS / shot.name)


def test_no_create_assignment_sidebar_and_validate_is_there_in_chinese(lab_page):
    tabs = lab_page.locator(".jp-SideBar .lm-TabBar-tab")
    titles = [(tab.get_attribute("title") or "") + " " + (tab.text_content() or "") for tab in tabs.all()]
    assert titles, "没找到侧边栏的标签页"
    assert not [title for title in titles if "Create Assignment" in title or "Assignment" in title], titles
    assert lab_page.locator("#nbgrader-create_assignemnt").count() == 0
    label = lab_page.locator(".jp-NotebookPanel-toolbar .validate-button .jp-ToolbarButtonComponent-label")
    expect(label).to_be_visible()
    shown = label.evaluate("e => getComputedStyle(e, '::before').content")
    assert shown == '"检查作业（Validate）"', shown


def test_nbgraders_servers_are_not_served_but_validate_is(lab):
    token = f"token={lab['token']}"
    assert get(f"{lab['url']}/formgrader?{token}") == 404
    assert get(f"{lab['url']}/formgraders?{token}") == 404
    assert get(f"{lab['url']}/assignments?{token}") == 404  # no exchange without the Hub
    assert get(f"{lab['url']}/nbgrader_version?version=0.9.6&{token}") == 200  # Validate asks this first
    assert get(f"{lab['url']}/custom/custom.css?{token}") == 200
