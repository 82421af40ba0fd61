"""run_agent with the lesson's other tools with effects (the scenario agent_effects): what the student's run did at
the services (each call of a tool with an effect, with its key) and left in the ledger beside its checkpoint, against
what the reference's run_agent does with the same replies.

The oracle runs here, as lesson 3's (autograder/hidden_tests/replies.py): the reference's run_agent, in a scratch
folder holding the same checkpoint and ledger, with a client that answers each request with the reply the student's
run got for the same conversation (else the planned model's reply), an execute_tool that answers each call with what
the student's same call got, and a lookup_effect that answers as the grader's services do (none but the mail server
can be asked by key). The replies are the student's, so the tool_use ids, the keys and the ledgers' toolUseIds are
the same on both sides.
"""
import json
import os
from collections import Counter
from pathlib import Path

import course.model
from course.ledger import LEDGER_NAME, ledger_text

from autograder.contract import same
from autograder.sandbox import scratch_folder
from autograder.scenario_run import READ_ONLY_TOOL_NAMES, answering_lookup
from autograder.hidden_tests.helpers import tools_answering
from autograder.hidden_tests.reconciled import NOT_RUN
from autograder.hidden_tests.replies import sent_difference, sent_otherwise

from .helpers import problem, records_in, short

EVERY_TOOL_ADVICE = ("循环里每一个工具调用都要走 execute_with_ledger(call, ledger_path(path))（只读工具它会直接执行；"
                     "其余的先记 intent、带着 tool_use id 作幂等键执行、再记 outcome），不只是 send_email，"
                     "也不只是 EFFECTS 表里列出的工具——不在 READ_ONLY_TOOLS 里的都要记："
                     "charge_card、append_line 这些不幂等的工具崩溃后重做就是做两遍，台账是唯一能说明它做没做过的地方")
RECONCILE_ADVICE = ("续跑时悬空调用一律交给 reconcile(state, ledger_path(path))，按台账和服务端决定：只有 READ_ONLY_TOOLS 里的"
                    "工具才重新执行，幂等写也不例外（台账里已有 outcome 就复用；只有 intent、服务端又答不上来，就补 is_error）")
UNTOUCHED_ADVICE = ("reconcile 怎么处理悬空调用，台账就记什么：补 is_error（结果未知）和重新执行只读工具时，台账不动。"
                    "把「未知」记成 outcome，下次恢复 recovery_action 看到 outcome 就复用它，把一个不知道做没做过的调用"
                    "当成了确定的结果")
TWICE_ADVICE = ("{kind} 多记了一条：每次执行只记一条 intent（执行之前）和一条 outcome（执行之后），execute_with_ledger 里"
                "各追加一次；reconcile 复用台账里已有的 outcome、或按服务端的回答记下 outcome 时，也不要再多追加一条（复用时台账不动）")
UNLEDGERED_EXECUTE_ADVICE = ("你的 run_agent 对账时读了台账，之后执行这次调用却没有记录：reconcile 判成要执行时也要经 "
                             "execute_with_ledger(call, ledger)——先记 intent、带着 tool_use id 作幂等键执行、再记 outcome。"
                             "直接 execute_tool 执行，这次执行途中再崩溃，下次恢复看台账就当它从没开始，"
                             "charge_card、append_line 这些不认键的工具就做两遍")
REPEAT_ADVICE = ("模型又要了一次 {name}，名字和参数都和前一次一样，tool_use id 是新的：这是另一次调用，幂等键是它自己的 id，"
                 "照样经 execute_with_ledger 执行。不同的调用，键一定不同：不能在对话里找同名、同参数、已经有结果的调用，"
                 "拿那次的结果顶替——模型要再发一次提醒、再扣一笔同样金额的款，就被悄悄吞掉，还告诉模型「做了」")
RETRY_ADVICE = ("{name} 用同一个幂等键 {key} 执行了 {mine} 次，参考答案是 {wanted} 次：一个调用只执行一次。工具出错（返回一段错误）"
                "也是确定的结果，照样记成 outcome、作为 tool_result 交给模型，要不要再试由模型决定；自己重试，"
                "执行的次数就不再由台账说了算")
KEPT_ADVICE = ("台账只追加、不修改：它原有的记录一条也不能少。ledger_path(path) 是 path 所在文件夹里的台账，同一个文件夹里"
               "别的检查点（别的任务）也记在这里；清空或重写它，那个任务停在悬空调用上时，续跑就当它从没开始，"
               "charge_card、append_line 这些不认键的工具就做两遍")
FOREIGN_ADVICE = ("这次调用不是这次运行发起的，也不是它的悬空调用：它的记录是台账里原来就有的（同一个文件夹里别的任务写的，"
                  "那个任务可能还停在它上面、等着自己续跑对账）。run_agent 只给自己执行、对账的调用追加记录，"
                  "别的调用的记录原样留着，不要替它补 outcome（「已放弃」「未完成」也不行：那就成了一个确定的结果，它的任务续跑时会直接复用）")
READ_ONLY_LEDGER_ADVICE = ("{name} 是只读工具（在 READ_ONLY_TOOLS 里）：execute_with_ledger 直接执行它，台账里不该有它的记录，"
                           "重做无害，恢复时再执行一次就是")


def _effects(calls) -> list:
    """(name, input, key) of each call of a tool with an effect, in order."""
    return [(c["name"], c["input"], c.get("key")) for c in calls if c["name"] not in READ_ONLY_TOOL_NAMES]


def reference_run(grading, outcome, index: int) -> dict:
    """What the reference's run_agent does with the replies and tool outputs run `index` got: {"effects", "ledger"
    (its records after the run), "asked" (its model calls that got a reply), "parted" (None, or the feedback on where
    the student's run first sent the model other messages than the reference's: from there on the reference's run
    gets the planned model's replies, with other tool_use ids, so other keys)}."""
    run, step = outcome.scenario.meta["runs"][index], outcome.scenario.steps[index]
    answered = [c for c in outcome.model_calls if c["step"] == index and c["status"] == 200]
    tools = outcome.student_tool_calls(index)
    replies, ran, parted = [], [], []

    def answer(body: dict) -> tuple:
        theirs = answered[len(replies)] if len(replies) < len(answered) else None
        sent = theirs and sent_difference(theirs["messages"], body.get("messages"), lesson4=True)
        if sent and not parted:
            parted.append(sent_otherwise([c["reply"] for c in answered], len(replies), sent, body.get("messages")))
        if theirs is not None and not sent:
            status, reply = 200, theirs["reply"]
        else:
            status, reply = course.model.planned_reply(body.get("messages"), step["calls"], len(replies))
        if status == 200:
            replies.append(reply)
        return status, reply, "req_reference"

    def execute_tool(name, tool_input, idempotency_key=None):
        ran.append({"name": name, "input": tool_input, "key": idempotency_key})
        return next((c["output"] for c in tools if c["name"] == name and same(c["input"], tool_input)
                     and c.get("key") == idempotency_key), NOT_RUN)

    with scratch_folder("effects") as folder, tools_answering(grading.reference, execute_tool=execute_tool,
                                                         lookup_effect=answering_lookup({"answers": {}})):
        checkpoint, ledger = Path(folder) / "checkpoint.json", Path(folder) / LEDGER_NAME
        if run["checkpoint"] is not None:
            checkpoint.write_text(json.dumps(run["checkpoint"], ensure_ascii=False), encoding="utf-8")
        if run["records"]:
            ledger.write_text(ledger_text(run["records"]), encoding="utf-8")
        grading.reference.run_agent(outcome.scenario.meta["task"], client=course.model.offline_client(answer),
                                    path=checkpoint)
        records, _ = records_in(ledger.read_bytes() if ledger.exists() else None)
    return {"effects": _effects(ran), "ledger": records, "asked": len(replies), "parted": parted[0] if parted else None}


def _by_call(records) -> dict:
    """toolUseId -> that call's records as the lesson reads them: their types in order, an outcome with its output."""
    found = {}
    for record in records if isinstance(records, list) else []:
        if isinstance(record, dict):
            kind = record.get("type")
            found.setdefault(record.get("toolUseId"), []).append(
                (kind, record.get("output")) if kind == "outcome" else (kind,))
    return found


def _said(kinds) -> str:
    return "、".join(k[0] if isinstance(k[0], str) else f"一条 type 是 {short(k[0])} 的记录" for k in kinds) if kinds else "（没有）"


def _where(run: dict, step: dict) -> str:
    """Which run of agent_effects `run` is (`step`, its call), in the feedback's words."""
    kwargs = step["kwargs"]
    called = ("" if kwargs.get("client") is not None
              else f"，调用时{'传的是 client=None' if 'client' in kwargs else '没有传 client'}（签名允许）")
    if run["what"] == "fresh":
        calls = "、".join(c["name"] for c in run["calls"])
        beside = f"，检查点旁边的台账里已有别的任务的 {len(run['records'])} 条记录" if run["records"] else ""
        return f"从头开始运行（模型依次要求 {calls}{beside}{called}）"
    pending = run["checkpoint"]["pendingToolUse"]
    ours = [(r["type"],) for r in run["records"] if r.get("toolUseId") == pending["id"]]
    kind = "幂等写" if run["what"] == "idempotent" else "没有哪张表列出的工具"
    return f"从检查点续跑（悬空的是{kind} {pending['name']}，id {pending['id']}，台账里原有它的 {_said(ours)}{called}）"


def _effects_said(effects) -> str:
    return "；".join(f"{name}（幂等键 {short(key)}）" for name, _, key in effects) or "没有执行任何有副作用的工具"


def _times(effects: list, effect: tuple) -> int:
    """How many of `effects` are calls of `effect`'s tool with its input, whatever their keys."""
    return sum(1 for name, tool_input, _ in effects if name == effect[0] and same(tool_input, effect[1]))


def _effects_problem(run: dict, mine: list, wanted: list, parted: str | None) -> str:
    """What the feedback says where the calls with effects differ from the reference's (`wanted`); `parted`: where
    the student's run first sent the model other messages (`reference_run`), said where no surer cause is seen."""
    merged = next((e for e in wanted if 0 < _times(mine, e) < _times(wanted, e)), None)
    keys, wanted_keys = Counter(key for _, _, key in mine if key is not None), Counter(key for _, _, key in wanted)
    retried = next((e for e in mine if keys[e[2]] > max(1, wanted_keys[e[2]])), None)
    if merged is not None:  # the same call asked for again, by another id, run once
        advice = REPEAT_ADVICE.format(name=merged[0])
    elif retried is not None:  # one call (one key) run more often than the reference runs it
        advice = RETRY_ADVICE.format(name=retried[0], key=short(retried[2]), mine=keys[retried[2]],
                                     wanted=wanted_keys[retried[2]])
    elif run["what"] == "fresh":
        unkeyed = [name for name, _, key in mine if key is None]
        advice = EVERY_TOOL_ADVICE if unkeyed or len(mine) < len(wanted) else None
    else:
        pending = run["checkpoint"]["pendingToolUse"]
        again = [e for e in mine if e[0] == pending["name"] and same(e[1], pending["input"])]
        unkeyed = any(key != pending["id"] for _, _, key in again)
        advice = RECONCILE_ADVICE if unkeyed or len(again) > sum(1 for e in wanted if e[0] == pending["name"]) else None
    if advice is None:
        advice = (f"{parted}。从这里起两边的对话不一样，模型的回复（连同 tool_use id，也就是幂等键）也就不一样" if parted
                  else "执行工具要走 execute_with_ledger" if run["what"] == "fresh"
                  else "续跑时要 reconcile(state, ledger_path(path))，执行工具要走 execute_with_ledger")
    return (f"服务端收到的有副作用的调用，你的依次是：{_effects_said(mine)}；参考答案在同样的回复下是："
            f"{_effects_said(wanted)}。{advice}")


def _names(outcome, index: int, run: dict) -> dict:
    """tool_use id -> tool name, of the pending call, of the calls its ledger had intents of and of every call the
    model asked for in the run."""
    names = {r.get("toolUseId"): r.get("name") for r in run["records"] if r.get("type") == "intent"}
    names.update((c["id"], c["name"]) for c in [(run["checkpoint"] or {}).get("pendingToolUse")] if c)
    for model_call in outcome.model_calls:
        if model_call["step"] == index:
            names.update((b.get("id"), b.get("name")) for b in (model_call.get("reply") or {}).get("content") or ()
                         if isinstance(b, dict) and b.get("type") == "tool_use")
    return names


def _read_ledger_before_running(outcome, index: int, run: dict) -> bool:
    """Whether run `index` opened its ledger to read (as reconcile does) before it ran the pending call (strace's
    log: what reached the kernel). The runs share a process, so its events are told apart by where they are in the
    log; each run has a ledger of its own."""
    pending = run["checkpoint"]["pendingToolUse"]
    ran = [c["at"] for c in outcome.student_tool_calls(index)
           if c["name"] == pending["name"] and same(c["input"], pending["input"])]
    began = outcome.started_at[index] if index < len(outcome.started_at) else None
    ledger = os.path.join(outcome.workdir, run["ledger"])
    return any(e["op"] == "open" and e.get("path") == ledger
               and not {"O_WRONLY", "O_RDWR"} & set(str(e.get("flags")).split("|"))
               and (began is None or e["at"] > began) and (not ran or e["at"] < ran[0])
               for e in outcome.fs_events if isinstance(e, dict))


def _ledger_problem(outcome, index: int, run: dict, names: dict, mine: dict, wanted: dict) -> str:
    call_id = next(i for i in [*wanted, *mine] if mine.get(i) != wanted.get(i))
    name = names.get(call_id, "一次调用")
    ours, theirs = [k[0] for k in mine.get(call_id, [])], [k[0] for k in wanted.get(call_id, [])]
    if ours == theirs:  # the same records, an outcome that does not hold the tool's output under "output"
        output, right = next((m[1], w[1]) for m, w in zip(mine[call_id], wanted[call_id]) if m != w)
        return (f"检查点旁边的台账里，{name}（toolUseId {short(call_id)}）的 outcome 记的 output 你的是 {short(output)}，"
                f"参考答案的是 {short(right)}：outcome 要在 \"output\" 字段里原样记下工具返回的文本，恢复时复用的就是它")
    said = (f"检查点旁边的台账里，{name}（toolUseId {short(call_id)}）的记录你的是 {_said(mine.get(call_id))}，"
            f"参考答案的是 {_said(wanted.get(call_id))}")
    pending = None if run["what"] == "fresh" else run["checkpoint"]["pendingToolUse"]["id"]
    given = {r.get("toolUseId") for r in run["records"]} - {pending}
    if call_id in given and len(mine.get(call_id, [])) < len(wanted.get(call_id, [])):  # another call's, dropped
        return f"{said}：{KEPT_ADVICE}"
    if call_id in given and len(mine.get(call_id, [])) > len(wanted.get(call_id, [])):  # another call's, added to
        return f"{said}：{FOREIGN_ADVICE}"
    if call_id != pending and name in READ_ONLY_TOOL_NAMES and not wanted.get(call_id):  # a call the loop ran
        return f"{said}：{READ_ONLY_LEDGER_ADVICE.format(name=name)}"
    twice = [k for k in ("intent", "outcome") if 0 < theirs.count(k) < ours.count(k)]
    if twice and set(theirs) <= set(ours):  # every kind there, one of them written again
        return f"{said}：{TWICE_ADVICE.format(kind=twice[0])}"
    extra = [k for k in mine.get(call_id, []) if k[0] == "outcome"]
    if call_id == pending and len(extra) > sum(1 for k in wanted.get(call_id, []) if k[0] == "outcome"):
        return f"{said}：{UNTOUCHED_ADVICE}"
    if run["what"] == "fresh":
        return f"{said}：{EVERY_TOOL_ADVICE}"
    missing = {k[0] for k in wanted.get(call_id, [])} - {k[0] for k in mine.get(call_id, [])}
    if call_id == pending and missing and _read_ledger_before_running(outcome, index, run):
        return f"{said}：{UNLEDGERED_EXECUTE_ADVICE}"
    return f"{said}：续跑时要 reconcile(state, ledger_path(path))"


def effects_problem(grading, outcome, index: int) -> str | None:
    """Why run `index` of agent_effects did not do at the services, or leave in its ledger, or send the model, what
    the reference does with the same replies; None if it did."""
    run = outcome.scenario.meta["runs"][index]
    where = _where(run, outcome.scenario.steps[index])
    message = problem(outcome, index, "run_agent")
    if message:
        return f"{where}：{message}"
    wanted = reference_run(grading, outcome, index)
    mine = _effects(outcome.student_tool_calls(index))
    if not same(mine, wanted["effects"]):
        return f"{where}，{_effects_problem(run, mine, wanted['effects'], wanted['parted'])}"
    records, error = records_in(outcome.files_after.get(run["ledger"]))
    if error is not None:
        return f"{where}，检查点旁边的台账读不出来（{short(str(error), 80)}）"
    if _by_call(records) != _by_call(wanted["ledger"]):
        names = _names(outcome, index, run)
        return f"{where}，{_ledger_problem(outcome, index, run, names, _by_call(records), _by_call(wanted['ledger']))}"
    asked = sum(1 for c in outcome.model_calls if c["step"] == index and c["status"] == 200)
    if asked != wanted["asked"]:
        return f"{where}，你的 run_agent 调用了模型 {asked} 次，参考答案在同样的回复下调用了 {wanted['asked']} 次"
    if wanted["parted"]:  # the same effects, but the model was told otherwise (a request after the last call with one)
        return f"{where}，{wanted['parted']}"
    return None
