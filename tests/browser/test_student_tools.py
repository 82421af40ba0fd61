"""The student's JupyterLab has the student's nbgrader tools and none of the instructor's.

`make lab` (the `lab` fixture) starts JupyterLab as the student bundle's lab.py does: the
page_config in student_bundle/jupyter_config disables the Create Assignment, Formgrader and
Course List plugins, and the formgrader and course-list server extensions are off. What
stays: Validate on the notebook toolbar and Assignment List in the Nbgrader menu.
"""
import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

NOTEBOOK = "resume-from-checkpoint.ipynb"
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PAGE_CONFIG = Path(__file__).resolve().parents[2] / "student_bundle" / "jupyter_config" / "labconfig" / "page_config.json"
INSTRUCTOR_PLUGINS = {"@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader",
                      "@jupyter/nbgrader:course-list"}
STUDENT_PLUGINS = {"@jupyter/nbgrader:menu", "@jupyter/nbgrader:assignment-list",
                   "@jupyter/nbgrader:validate-assignment"}


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


def test_page_config_disables_exactly_the_instructor_plugins(lab):
    with urllib.request.urlopen(f"{lab['url']}/lab?token={lab['token']}", timeout=10) as reply:
        html = reply.read().decode()
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  html, re.DOTALL).group(1))
    disabled = set(config["disabledExtensions"])
    assert INSTRUCTOR_PLUGINS <= disabled
    assert not STUDENT_PLUGINS & disabled
    assert set(json.loads(PAGE_CONFIG.read_text())["disabledExtensions"]) == INSTRUCTOR_PLUGINS


def test_nbgrader_menu_lists_only_the_assignment_list(lab_page, artifacts):
    lab_page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    menu = lab_page.locator("#jp-mainmenu-nbgrader")
    expect(menu).to_be_visible()
    labels = [text.strip() for text in menu.locator(".lm-Menu-item:visible .lm-Menu-itemLabel").all_text_contents()]
    shot = artifacts / "student-nbgrader-menu.png"
    lab_page.screenshot(path=str(shot), clip={"x": 0, "y": 0, "width": 900, "height": 420})
    if os.environ.get("UPDATE_SCREENSHOTS"):
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (DOCS_SCREENSHOTS / shot.name).write_bytes(shot.read_bytes())
    lab_page.keyboard.press("Escape")
    assert labels == ["Assignment List"]


def test_no_create_assignment_sidebar_and_validate_is_there(lab_page):
    tabs = lab_page.locator(".jp-SideBar .lm-TabBar-tab")
    titles = [(tab.get_attribute("title") or "") + " " + (tab.text_content() or "") for tab in tabs.all()]
    assert titles, "没找到侧边栏的标签页"
    assert not [title for title in titles if "Create Assignment" in title], titles
    assert lab_page.locator("#nbgrader-create_assignemnt").count() == 0
    expect(lab_page.locator(".jp-NotebookPanel-toolbar .validate-button")).to_be_visible()


def test_instructor_servers_are_not_served_but_the_students_are(lab):
    token = f"token={lab['token']}"
    assert get(f"{lab['url']}/formgrader?{token}") == 404
    assert get(f"{lab['url']}/formgraders?{token}") == 404
    assert get(f"{lab['url']}/nbgrader_version?version=0.9.6&{token}") == 200  # Validate asks this first
    assert get(f"{lab['url']}/assignments?{token}") != 404  # the Assignment List's server
