"""What run_agent did with the model's replies (in every shape in the scenario agent_replies; the scripted
model's in agent_fresh), against what the reference's run_agent does with the same replies.

The oracle runs here: the reference's run_agent, with a client that answers each request with the reply the
student's run got for the same conversation (a conversation that went elsewhere gets the scripted model's
answer, in the step's planned shape), and an execute_tool that answers each call with what the student's
same call got. What the two runs did is then compared by the contract: the calls to the model (and the
messages each one sent) and to the tools, in order; the state returned; the checkpoint left at the path.
"""
import json
import re
from itertools import zip_longest
from pathlib import Path

import course.model
from course.checks import MODEL_DUMP_ADVICE

from autograder.contract import (MISSING, UNKNOWN, carries_output, checkpoint_differences, first_difference,
                                 free_text, same)
from autograder.sandbox import scratch_folder

from .helpers import (KEEP_CHECKPOINT_ADVICE, checkpoint_file, describe_reply, extra_fields_said, on_disk, output_said,
                      problem, removed, short, text_of, tools_answering)
from .reconciled import NOT_RUN


def _action(record: dict) -> tuple:
    """("model", the reply's HTTP status) or ("tool", name, input), from what the grader recorded."""
    return ("model", record["status"]) if "messages" in record else ("tool", record["name"], record["input"])


def _same_action(mine, wanted) -> bool:
    if mine is None or wanted is None or mine[0] != wanted[0]:
        return False
    return mine[0] == "model" or (mine[1] == wanted[1] and same(mine[2], wanted[2]))


def reference_run(grading, task: str, plan: list, calls: list, tools: list, checkpoint: dict | None = None) -> tuple:
    """(actions, requests, state, saved, held): what the reference's run_agent did (as `_action` names them, in
    order), the messages of each of its model calls, what it returned and left on disk, and the checkpoint on disk
    at each action (None: no file yet), given the replies and tool outputs the student's run got (`calls`, `tools`,
    as the grader recorded them), resuming from `checkpoint` (None: none at the path)."""
    answered = [call for call in calls if call["status"] == 200]
    actions, requests, replies, ran, held = [], [], [], [], []

    def read_held():
        """The checkpoint on disk now, as the grader reads the student's at each model and tool call."""
        held.append(json.loads(path.read_text(encoding="utf-8")) if path.exists() else None)

    def answer(body: dict) -> tuple:
        read_held()
        number = len(replies)
        requests.append(body.get("messages"))
        theirs = answered[number] if number < len(answered) else None
        if theirs is not None and not sent_difference(theirs["messages"], body.get("messages")):
            status, reply = 200, theirs["reply"]
        else:
            status, reply, _ = course.model.answer(body, plan[number] if number < len(plan) else None)
        actions.append(("model", status))
        if status == 200:
            replies.append(reply)
        return status, reply, "req_reference"

    def execute_tool(name, tool_input):
        read_held()
        actions.append(("tool", name, tool_input))
        theirs = tools[len(ran)] if len(ran) < len(tools) else None
        ran.append(name)
        if theirs is not None and theirs["name"] == name and same(theirs["input"], tool_input):
            return theirs["output"]
        return NOT_RUN

    with scratch_folder("agent") as folder, tools_answering(grading.reference, execute_tool=execute_tool):
        path = Path(folder) / "checkpoint.json"
        if checkpoint is not None:
            path.write_text(json.dumps(checkpoint, ensure_ascii=False), encoding="utf-8")
        state = grading.reference.run_agent(task, client=course.model.offline_client(answer), path=path)
        return actions, requests, state, json.loads(path.read_text(encoding="utf-8")), held


def _doing(outcome, index: int, action) -> str:
    if action is None:
        return problem(outcome, index, "你的 run_agent") or "你的 run_agent 到这里就结束了"
    if action[0] == "model":
        return "你的 run_agent 又调用了一次模型"
    return f"你的 run_agent 执行了工具 {action[1]}（input {short(action[2], 60)}）"


def _served_without_running(record: dict | None, wanted) -> str | None:
    """The content of the tool_result the student's model call `record` sent for the tool call the reference ran
    there (`wanted`), not having run it; None if that is not what happened."""
    if record is None or "messages" not in record or wanted is None or wanted[0] != "tool":
        return None
    sent = record["messages"] if isinstance(record["messages"], list) else []
    asked = [b.get("id") for m in sent[-2:-1] if isinstance(m, dict) and isinstance(m.get("content"), list)
             for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == wanted[1]
             and same(b.get("input"), wanted[2])]
    for block in sent[-1].get("content") if sent and isinstance(sent[-1], dict) and isinstance(
            sent[-1].get("content"), list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") in asked:
            return text_of(block.get("content"))
    return None


def _diverged(outcome, index: int, replies: list, asked: int, wanted, theirs) -> str:
    """The feedback where the student's run stopped doing what the reference's did: after the model's reply
    number `asked`, the reference did `wanted` (None: returned) and the student's `theirs` (None: stopped)."""
    last = f"模型的第 {asked} 次回复{describe_reply(replies[asked - 1])}" if asked else "还没有调用模型"
    should = ("参考答案到这里就停下、返回状态：回复里没有工具调用（tool_use），不管停止原因是什么" if wanted is None
              else "参考答案接着再调用一次模型" if wanted[0] == "model"
              else f"参考答案接着执行回复里的工具调用 {wanted[1]}：回复里有 tool_use 就要执行，不管停止原因是什么，"
                   "也不管它在第几个内容块")
    return f"{last}。{should}；{_doing(outcome, index, theirs)}"


def _results_in(messages: list) -> list:
    return [block for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
            for block in m["content"] if isinstance(block, dict) and block.get("type") == "tool_result"]


def _result_judges(messages: list, unknown_free: bool = False) -> dict:
    """tool_use_id -> a judge of a tool_result's content: it carries the output the reference's result carries
    (the contract allows words around it); `unknown_free`: a result the reference flags is_error is one of a call
    nobody knows the outcome of (lesson 4's), worded freely (`free_text`)."""
    def judge(block: dict):
        if unknown_free and block.get("is_error") is True:
            return free_text
        return lambda content, output=text_of(block.get("content")): carries_output(content, output)

    return {block["tool_use_id"]: judge(block) for block in _results_in(messages)}


def _outcomes(messages: list) -> dict:
    """tool_use_id -> what lesson 4 judges a tool_result's is_error on (`error_flag_right`): UNKNOWN where the
    reference's result is flagged (lesson 4's reference flags nothing else), else the output it carries."""
    return {block["tool_use_id"]: UNKNOWN if block.get("is_error") is True else text_of(block.get("content"))
            for block in _results_in(messages)}


def sent_difference(sent, wanted, lesson4: bool = False):
    """Where the messages of a model call first differ from the reference's (`first_difference`, each tool_result
    judged by the output the reference's carries); None if the model reads them alike. The one judge of "the same
    request": the reference's run is handed the student's reply exactly where none is found. `lesson4`: against
    lesson 4's reference, each is_error judged by the contract's lesson-4 rule (a failed tool's result flagged or
    not), an unknown outcome worded freely; lesson 3's reference flags a failure as its students must."""
    if not isinstance(wanted, list):
        return first_difference(sent, wanted)
    return first_difference(sent, wanted, _result_judges(wanted, lesson4), _outcomes(wanted) if lesson4 else None)


def _shown(where: str, value) -> str:
    if value is MISSING:
        return "false（不写就是 false）" if where.endswith(".is_error") else "没有"
    return short(text_of(value) if where.endswith(".content") and isinstance(value, list) else value, 80)


def _result_output(messages: list, where: str):
    """The text of the tool_result block `where` ("messages[3].content[0].is_error") is in, in the reference's
    `messages`: the tool's output; None if `where` is not in a tool_result."""
    found = re.match(r"messages\[(\d+)\]\.content\[(\d+)\]\.", where)
    if not found:
        return None
    message, block = int(found.group(1)), int(found.group(2))
    content = messages[message].get("content") if message < len(messages) else None
    if not isinstance(content, list) or block >= len(content) or content[block].get("type") != "tool_result":
        return None
    return text_of(content[block].get("content"))


def sent_otherwise(replies: list, asked: int, sent: tuple, wanted_messages: list) -> str:
    """The feedback where the student's model call after `asked` replies sent other messages than the reference's
    (`sent`: where, the student's value there, the reference's)."""
    where, mine, wanted = sent
    before = f"模型的第 {asked} 次回复{describe_reply(replies[asked - 1])}之后，" if asked else ""
    dumped = f"：值为 null 的字段是 SDK 对象的 model_dump() 带出来的，{MODEL_DUMP_ADVICE}" if (
        mine is None and wanted is MISSING) else ""
    return (f"{before}你的 run_agent 再调用模型时发出的 messages 和参考答案在同样的回复下发出的不一样："
            f"{where} 你的是 {_shown(where, mine)}，参考答案的是 {_shown(where, wanted)}{dumped}"
            f"{output_said(_result_output(wanted_messages, where), flag_only=where.endswith('.is_error'))}")


def replies_problem(grading, outcome, index: int, checkpoint: dict | None = None,
                    model_calls: int | None = None) -> str | None:
    """Why run number `index` of the scenario (resumed from `checkpoint`; None: from scratch) did not do what the
    reference does on the same replies; None if it did. `model_calls`: judge only up to that many model calls (their
    messages included), not what comes after them."""
    step = outcome.scenario.steps[index]
    calls = [c for c in outcome.model_calls if c["step"] == index]
    tools = outcome.student_tool_calls(index)
    records = sorted(calls + tools, key=lambda record: record["seq"])
    mine = [_action(record) for record in records]
    actions, requests, state, saved, _ = reference_run(grading, step["args"][0], step.get("replies", []), calls, tools,
                                                       checkpoint)
    replies = [c["reply"] for c in calls if c["status"] == 200]
    for number, (theirs, wanted) in enumerate(zip_longest(mine, actions)):
        asked = mine[:number].count(("model", 200))
        if not _same_action(theirs, wanted):
            served = _served_without_running(records[number] if number < len(records) else None, wanted)
            if served is not None:
                return (f"模型的第 {asked} 次回复{describe_reply(replies[asked - 1])}。参考答案接着通过 execute_tool 执行"
                        f"回复里的工具调用 {wanted[1]}；你的 run_agent 没有执行它，就给了它一个 tool_result（内容是"
                        f"{short(served, 60) if served else '空的'}），"
                        "又调用了模型。模型每次要工具都要经 execute_tool 执行，同样的调用以前的输出不能拿来用：只读说的是"
                        "不改变外部世界，不是输出不变，文件、文件夹、已发邮件的列表都可能已经变了")
            return _diverged(outcome, index, replies, asked, wanted, theirs)
        if theirs[0] == "model":  # the same call so far: the same messages?
            wanted_messages = requests[sum(action[0] == "model" for action in mine[:number])]
            sent = sent_difference(records[number]["messages"], wanted_messages)
            if sent:
                return sent_otherwise(replies, asked, sent, wanted_messages)
            if model_calls is not None and mine[:number + 1].count(("model", 200)) >= model_calls:
                return None
    if problem(outcome, index, "run_agent"):  # it did what the reference did, then did not return
        return _diverged(outcome, index, replies, len(replies), None, None)
    results = _result_judges(state["messages"])
    extra = extra_fields_said(outcome.steps[index]["value"], "run_agent 返回的状态")
    if extra:
        return extra
    shown = "；".join(describe_reply(reply) for reply in replies)
    wrong = checkpoint_differences(outcome.steps[index]["value"], state, results)
    if wrong:
        return f"模型的回复依次是：{shown}。run_agent 返回的状态和参考答案在同样的回复下返回的不一样（{'、'.join(wrong)}）"
    file = checkpoint_file(outcome, index)
    left, why = on_disk(outcome, file)
    wrong = checkpoint_differences(left, saved, results)
    if wrong:
        advice = (KEEP_CHECKPOINT_ADVICE if removed(outcome, file)
                  else "模型的最后一条回复追加进 messages 之后也要存档，不管停止原因是什么")
        return (f"模型的回复依次是：{shown}。run_agent 结束时 path 上的检查点和参考答案留下的不一样"
                f"（{why or '、'.join(wrong)}）：{advice}")
    return None


# What a save point's field is for, where a student's differs from the reference's at the same moment.
FIELD_ADVICE = {
    "turns": "turns 数的是到这一刻为止这个任务一共调用了几次模型（跨重启接着数），存档点 A 存下时已经算上刚才那一次",
    "tokensUsed": ("tokensUsed 要在存档点 A 之前就改成这次响应的 input_tokens + output_tokens（课文第 3 节循环的第 3 步，"
                   "存档点 A 是第 6 步）：在这之后崩溃，续跑时检查点里的 tokensUsed 就是此刻上下文窗口的大小"),
}


def _moment(record: dict, model_calls_before: int, resumed: bool) -> str:
    """Which save point the checkpoint on disk at this model or tool call is, in the student's terms."""
    if "messages" not in record:
        return f"执行工具 {record['name']} 时，磁盘上的检查点（存档点 A）"
    if resumed and not model_calls_before:
        return "续跑后第一次调用模型时，磁盘上的检查点（检查点本身，有悬空调用时是对账之后存下的那一份）"
    return f"第 {model_calls_before + 1} 次调用模型时，磁盘上的检查点（存档点 B）"


def save_points_problem(grading, outcome, index: int, checkpoint: dict | None = None) -> str | None:
    """Whether, at each model and tool call of run number `index` (as long as it did what the reference did), the
    checkpoint on disk had every field the reference's had at the same moment (save point A at a tool call, B at
    a model call): where its messages and pendingToolUse show it is the same save point (whether it is, is
    check_save_points's to judge), its version, task, turns and tokensUsed; `checkpoint`: the one the run resumed
    from. None if it did."""
    step = outcome.scenario.steps[index]
    calls = [c for c in outcome.model_calls if c["step"] == index]
    tools = outcome.student_tool_calls(index)
    records = sorted(calls + tools, key=lambda record: record["seq"])
    actions, _, _, _, held = reference_run(grading, step["args"][0], step.get("replies", []), calls, tools, checkpoint)
    for number, (record, wanted, theirs) in enumerate(zip(records, actions, held)):
        if not _same_action(_action(record), wanted):
            return None  # where the runs part ways, the other checks say so
        if theirs is None:  # nothing saved yet: a fresh run's first model call
            continue
        mine = (record.get("snapshot") or {}).get("state")
        judges = _result_judges(theirs["messages"])
        wrong = [key for key in checkpoint_differences(mine, theirs, judges) if key in theirs]  # extra: said elsewhere
        if not wrong or not isinstance(mine, dict) or {"messages", "pendingToolUse"} & set(wrong):
            continue  # no save, or another save point than the reference's here: check_save_points says so
        at = _moment(record, sum("messages" in r for r in records[:number]), checkpoint is not None)
        key = wrong[0]
        said = f"你的是 {short(mine[key], 80) if key in mine else '没有'}，参考答案的是 {short(theirs[key], 80)}"
        return f"{at}和参考答案在同一时刻存下的不一样：{key} {said}。{FIELD_ADVICE.get(key, '')}".rstrip()
    return None
