"""The notebook widgets: their HTML is built from data, so it is checked here without a browser."""
import re

import ipywidgets as widgets
import pytest

from course import load_sample
from instruments.crash_matrix import crash_points
from instruments.widgets import checkpoint_viewer, crash_explorer, render_checkpoint, render_timeline


def pending_spans(page):
    return re.findall(r'<span class="cp-pending">(.*?)</span>', page)


@pytest.mark.parametrize("name", ["cpA", "cpB", "cpC"])
def test_save_points_follow_each_reply_and_each_result(name):
    cp = load_sample(name)
    page = render_checkpoint(cp)
    assistants = sum(m["role"] == "assistant" for m in cp["messages"])
    results = sum(1 for m in cp["messages"][1:] if isinstance(m["content"], list)
                  and any(b.get("type") == "tool_result" for b in m["content"]))
    assert page.count('class="cp-save cp-save-a"') == assistants
    assert page.count('class="cp-save cp-save-b"') == results
    assert page.count('class="cp-msg ') == len(cp["messages"])
    assert page.count("检查点停在这里") == 1
    assert f'<td class="cp-field-turns">{cp["turns"]}</td>' in page


def test_the_checkpoint_stops_at_a_or_b():
    assert re.search(r"存档点 B <span class=\"cp-here\">", render_checkpoint(load_sample("cpA")))
    assert re.search(r"存档点 A <span class=\"cp-here\">", render_checkpoint(load_sample("cpC")))


def test_the_pending_call_is_highlighted():
    assert pending_spans(render_checkpoint(load_sample("cpA"))) == []
    (cpb,) = pending_spans(render_checkpoint(load_sample("cpB")))
    assert "read_file" in cpb and "toolu_01A" in cpb and "meeting-08-25.md" in cpb
    (cpc,) = pending_spans(render_checkpoint(load_sample("cpC")))
    assert "send_email" in cpc and "toolu_01B" in cpc


def test_the_recovery_action_comes_from_the_function_given(reference):
    assert "未提供 recovery_action" in render_checkpoint(load_sample("cpC"))
    for name, action in (("cpA", "continue"), ("cpB", "rerun"), ("cpC", "is_error")):
        page = render_checkpoint(load_sample(name), reference.recovery_action)
        assert f"<code class=\"cp-action-name\">&#x27;{action}&#x27;</code>" in page
        assert "cp-action cp-action-disagrees" not in page and "和对账规则不一致" not in page
    wrong = render_checkpoint(load_sample("cpC"), lambda cp: "rerun")
    assert "&#x27;rerun&#x27;" in wrong and "只读工具" in wrong  # shows the student's answer, right or wrong


@pytest.mark.parametrize("name, answer, expected", [("cpA", "rerun", "continue"), ("cpB", "is_error", "rerun"),
                                                    ("cpC", "rerun", "is_error"), ("cpC", "retry", "is_error")])
def test_an_action_against_the_rule_is_marked(name, answer, expected):
    page = render_checkpoint(load_sample(name), lambda cp: answer)
    assert 'class="cp-action cp-action-disagrees"' in page
    assert "和对账规则不一致" in page and f"规则给出的是 &#x27;{expected}&#x27;" in page


def test_a_broken_or_mutating_recovery_action_does_not_break_the_viewer():
    cp = load_sample("cpC")
    page = render_checkpoint(cp, lambda cp: cp["nope"])
    assert "recovery_action 出错" in page and "KeyError" in page

    def mutating(cp):
        cp["messages"].clear()
        return "continue"

    page = render_checkpoint(cp, mutating)
    assert page.count('class="cp-msg ') == len(cp["messages"]) > 0
    assert "不是 continue" in render_checkpoint(cp, lambda cp: "retry")


def test_content_is_escaped():
    cp = load_sample("cpA")
    cp["task"] = "<script>alert(1)</script>"
    cp["messages"][0]["content"] = "<img src=x onerror=alert(1)>"
    page = render_checkpoint(cp)
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in page


def test_checkpoint_viewer_is_a_widget():
    viewer = checkpoint_viewer("cpB")
    assert isinstance(viewer, widgets.HTML) and "checkpoint-viewer" in viewer._dom_classes
    assert pending_spans(viewer.value)


def test_timeline_marks_the_selected_crash_point():
    events = [{"kind": "model", "when": "before", "call": 1, "messages": 1},
              {"kind": "model", "when": "after", "call": 1},
              {"kind": "save", "when": "write", "file": "temp"},
              {"kind": "tool", "when": "before", "name": "list_dir"}]
    page = render_timeline(crash_points(events), 2)
    assert page.count('class="ce-point ') == 4
    assert re.findall(r'class="ce-point ce-kind-(\w+)( ce-selected)?"', page) == [
        ("model", ""), ("model", ""), ("save", " ce-selected"), ("tool", "")]
    assert "崩溃点 3/4：第 1 轮 · 存档点 A：临时文件写到一半" in page


def test_crash_explorer_runs_the_students_reconcile_at_the_chosen_point(reference):
    view = crash_explorer(reference.run_agent, reference.incident_reconcile)
    slider, timeline, crash = view.children
    assert slider.max > 50 and "ce-view" in view._dom_classes
    # It opens on the incident's crash point: the incident's reconcile sends twice there.
    assert "send_email 执行完、结果还没存" in timeline.value
    assert '<li class="ce-broken">✗ 高影响操作没有执行两次</li>' in crash.value
    assert "收到 2 封" in crash.value
    slider.value = 0  # before the first model call: nothing saved yet, a fresh start is fine
    assert "ce-holds" in crash.value and "收到 1 封" in crash.value
    assert "第 1 次模型调用之前" in timeline.value


def test_crash_explorer_with_the_fixed_reconcile(reference):
    view = crash_explorer(reference.run_agent, reference.reconcile)
    crash = view.children[2].value
    assert "ce-holds" in crash and "is_error=True" in crash and "收到 1 封" in crash
