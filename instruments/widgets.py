"""Two views for the notebooks: a checkpoint viewer and a crash explorer.

    checkpoint_viewer(load_sample("cpC"), recovery_action)   # your recovery_action names the action
    crash_explorer(run_agent, reconcile)                      # slide along the run, crash, resume

The HTML comes from plain functions of the data (`render_checkpoint`,
`render_timeline`, `render_crash`), so it can be checked without a browser; the
widgets only put it on screen. CSS classes (cp-*, ce-*) name the parts.
"""
import copy
import html
import json

import ipywidgets as widgets

from course.checks import short
from course.model import content_blocks
from course.samples import load_sample
from course.tools import TOOLS

from .crash_matrix import crash_at, trace
from .replay import INVARIANTS, REPLAY_TASKS, Agent, ReplayResult, describe_block, is_incident_point

STYLE = """<style>
.cp-viewer, .ce-view {font-size: 13px; line-height: 1.5}
.cp-fields td {padding: 1px 10px 1px 0; vertical-align: top}
.cp-timeline {list-style: none; padding-left: 0; margin: 6px 0}
.cp-msg {border-left: 3px solid #bbb; padding: 2px 8px; margin: 2px 0}
.cp-role-assistant {border-color: #4a78c2} .cp-role-user {border-color: #999}
.cp-pending {background: #fff3c4; outline: 2px solid #e0a800; padding: 0 3px}
.cp-save {margin: 2px 0 2px 12px; font-size: 12px; color: #555}
.cp-save::before {content: "── "}
.cp-here {font-weight: bold; color: #b30000}
.cp-action {margin-top: 6px; padding: 4px 8px; background: #eef4ff}
.cp-action-missing, .cp-action-error {background: #f3f3f3; color: #666}
.cp-action-disagrees {background: #ffe9e9; outline: 2px solid #b30000}
.cp-rule {color: #b30000; font-weight: bold}
.ce-strip {display: flex; gap: 1px; margin: 4px 0}
.ce-point {flex: 1; height: 14px; background: #ddd}
.ce-kind-model {background: #9ec5fe} .ce-kind-tool {background: #ffd28a} .ce-kind-save {background: #c8c8c8}
.ce-selected {outline: 2px solid #000; transform: scaleY(1.4)}
.ce-ok {color: #1a7f37} .ce-broken {color: #b30000; font-weight: bold} .ce-unknown {color: #666}
.ce-report {white-space: pre-wrap; background: #fafafa; padding: 6px}
</style>"""

ACTIONS = {
    "continue": "没有悬空调用：直接拿 messages 发起下一次模型调用。",
    "rerun": "悬空的是只读工具：再执行一次，用它这次的真实输出作为 tool_result。",
    "is_error": "悬空的是高影响工具：不重跑，补一条 is_error 的 tool_result，让模型自己去确认。",
}


# The course's tools that only look (everything but send_email): what the reconcile rule reruns.
READ_ONLY = frozenset(tool["name"] for tool in TOOLS) - {"send_email"}


def rule_action(cp: dict) -> str:
    """The recovery action the lesson's rule gives for this checkpoint."""
    pending = cp.get("pendingToolUse")
    if pending is None:
        return "continue"
    return "rerun" if pending.get("name") in READ_ONLY else "is_error"


def _action_html(cp: dict, recovery_action) -> str:
    if recovery_action is None:
        return '<div class="cp-action cp-action-missing">恢复动作：未提供 recovery_action</div>'
    try:
        action = recovery_action(copy.deepcopy(cp))  # a copy: the function may change what it gets
    except Exception as exc:
        return f'<div class="cp-action cp-action-error">recovery_action 出错：{html.escape(repr(exc))}</div>'
    meaning = ACTIONS.get(action, "（不是 continue / rerun / is_error 之一）")
    expected = rule_action(cp)
    verdict, css = "", "cp-action"
    if action != expected:
        css += " cp-action-disagrees"
        pending = cp.get("pendingToolUse") or {}
        why = ("没有悬空调用" if expected == "continue" else
               f"悬空的 {pending.get('name')} 是只读工具" if expected == "rerun" else
               f"悬空的 {pending.get('name')} 不在只读工具之列")
        verdict = (f'<div class="cp-rule">✗ 和对账规则不一致：{html.escape(why)}，'
                   f"规则给出的是 {html.escape(repr(expected))}。</div>")
    return (f'<div class="{css}">恢复动作：<code class="cp-action-name">{html.escape(repr(action))}</code>'
            f" —— {html.escape(meaning)}{verdict}</div>")


def render_checkpoint(cp: dict, recovery_action=None) -> str:
    """The checkpoint as HTML: its fields, the message timeline with save points, the recovery action."""
    pending = cp.get("pendingToolUse") or {}
    fields = "".join(
        f'<tr><td><code>{name}</code></td><td class="cp-field-{name}">'
        f"{html.escape(short(json.dumps(cp.get(name), ensure_ascii=False), 140))}</td></tr>"
        for name in ("version", "task", "turns", "tokensUsed", "pendingToolUse"))
    items = []
    messages = cp.get("messages", [])
    for number, message in enumerate(messages):
        role = message.get("role", "?")
        blocks = []
        for block in content_blocks(message):
            text = html.escape(short(describe_block(block), 140))
            if block.get("type") == "tool_use" and block.get("id") == pending.get("id"):
                text = f'<span class="cp-pending">悬空调用 → {text}</span>'
            blocks.append(text)
        items.append(f'<li class="cp-msg cp-role-{html.escape(role)}"><b>[{number}] {html.escape(role)}</b> '
                     f'{"<br>".join(blocks)}</li>')
        save = _save_point(message, first=number == 0)
        if save:
            here = ' <span class="cp-here">← 检查点停在这里</span>' if number == len(messages) - 1 else ""
            items.append(f'<li class="cp-save cp-save-{save.lower()}">存档点 {save}{here}</li>')
    return (f'{STYLE}<div class="cp-viewer"><table class="cp-fields">{fields}</table>'
            f'<ol class="cp-timeline">{"".join(items)}</ol>{_action_html(cp, recovery_action)}</div>')


def _save_point(message: dict, first: bool) -> str:
    """Which save point records this message: A after the model's reply, B after a tool's result."""
    if message.get("role") == "assistant":
        return "A"
    if not first and any(b.get("type") == "tool_result" for b in content_blocks(message)):
        return "B"
    return ""


def checkpoint_viewer(cp, recovery_action=None) -> widgets.HTML:
    """A view of one checkpoint (a dict, or "cpA"/"cpB"/"cpC"); pass your recovery_action to see its answer."""
    if isinstance(cp, str):
        cp = load_sample(cp)
    viewer = widgets.HTML(render_checkpoint(cp, recovery_action))
    viewer.add_class("checkpoint-viewer")
    return viewer


def render_timeline(points: list, selected: int) -> str:
    """The run's crash points as a strip of cells (model, tool, save), the selected one outlined."""
    cells = "".join(
        f'<div class="ce-point ce-kind-{point.event["kind"]}{" ce-selected" if i == selected else ""}"'
        f' title="{html.escape(point.label)}"></div>'
        for i, point in enumerate(points))
    return (f'<div class="ce-timeline"><div class="ce-strip">{cells}</div>'
            f'<div class="ce-label">崩溃点 {selected + 1}/{len(points)}：{html.escape(points[selected].label)}</div></div>')


def render_crash(result: ReplayResult) -> str:
    """What resuming after this crash did, and which invariants held."""
    marks = {True: ("ce-ok", "✓"), False: ("ce-broken", "✗"), None: ("ce-unknown", "?")}
    checks = "".join(f'<li class="{marks[ok][0]}">{marks[ok][1]} {INVARIANTS[name]}</li>'
                     for name, ok in result.invariants.items())
    verdict = "ce-holds" if result.holds else "ce-fails"
    return (f'<div class="ce-crash {verdict}"><ul class="ce-invariants">{checks}</ul>'
            f'<div class="ce-report">{html.escape(result.report())}</div></div>')


def crash_explorer(run_agent, reconcile, *, save_checkpoint=None, task_name: str = "email") -> widgets.VBox:
    """Pick a crash point on the slider: the agent is killed there for real, resumed, and checked."""
    agent = Agent(run_agent, reconcile, save_checkpoint, REPLAY_TASKS[task_name])
    points = trace(agent)
    start = next((i for i, p in enumerate(points) if is_incident_point(p.event)), 0)
    slider = widgets.IntSlider(value=start, min=0, max=len(points) - 1, description="崩溃点",
                               continuous_update=False, layout=widgets.Layout(width="100%"))
    timeline, crash = widgets.HTML(), widgets.HTML()
    results = {}  # crash point -> ReplayResult: each point is run once

    def show(_change=None):
        selected = slider.value
        timeline.value = STYLE + render_timeline(points, selected)
        if selected not in results:
            crash.value = "<i>正在真的杀掉进程、续跑……</i>"
            (results[selected],) = crash_at(points[selected], agent)
        crash.value = render_crash(results[selected])

    slider.observe(show, names="value")
    show()
    view = widgets.VBox([slider, timeline, crash])
    view.add_class("ce-view")
    return view
