"""run_agent (test_run_agent, 5 points).

save_checkpoint, load_checkpoint and reconcile are the grader's own while these run,
so these points depend on run_agent alone. The model and the tools answer from the
grader, which counts every call, notes which client made it (the one passed in, or
one from make_client()), and reads the checkpoint file at each of them. The
checkpoint lives in a folder of its own, never at the default path, and a resumed
run_agent is given the task in other words than the checkpoint's.
"""
import pytest

import course.model
from autograder.contract import carries_output, checkpoint_differences
from autograder.protocol import StepStatus
from course.checks import unknown_wording_problem

from .crashes import reference_load, run_agent_problem
from .replies import reference_run, replies_problem, save_points_problem
from .helpers import (KEEP_CHECKPOINT_ADVICE, checkpoint_file, describe_reply, expect, extra_fields_said, fail, field,
                      files_after_step, full_disk_problem, on_disk, one_email, pairing_problem, problem, removed,
                      returned, same, saved_state, short, text_of, unreadable_problem, usage_total)
from .scenarios import STANDINS

GRADE = "test_run_agent"


def is_task_only(messages, task) -> bool:
    if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict):
        return False
    first = messages[0]
    content = first.get("content")
    as_blocks = isinstance(content, list) and text_of(content) == task and len(content) == 1
    return first.get("role") == "user" and (content == task or as_blocks)


def tool_uses(message) -> list:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def final_state(outcome, index=0):
    state = returned(outcome, index, "run_agent")
    expect(isinstance(state, dict), f"run_agent 应该返回最终状态（一个 dict），你的函数返回了 {short(state)}")
    return state


def check_final_state(state, calls, task, turns_before, task_why, tokens_before=0):
    """All six fields of the state run_agent returned after `calls` (the answered model calls)."""
    expect(same(field(state, "version", "返回的状态"), 1), "返回的状态里 version 应该是 1")
    expect(same(state.get("task"), task), f"返回的状态里 task 应该是{task_why}「{task}」，你的是 {short(state.get('task'))}")
    expected_turns = turns_before + len(calls)
    expect(same(state.get("turns"), expected_turns),
           f"turns 要从检查点里的 {turns_before} 接着数：这次一共调用了 {len(calls)} 次模型，应该是 {expected_turns}，"
           f"你的是 {short(state.get('turns'))}" if turns_before else
           f"模型一共被调用了 {len(calls)} 次，turns 应该也是 {len(calls)}，你的是 {short(state.get('turns'))}")
    expect(state.get("pendingToolUse", "缺少") is None, "任务结束时 pendingToolUse 应该是 None")
    used = state.get("tokensUsed")
    stale = same(used, tokens_before)  # never set from a response: not a sum
    expect(same(used, usage_total(calls[-1])),
           "tokensUsed 应该是最近一次响应的 input_tokens + output_tokens"
           f"{'（每次调用模型之后都用这次响应的用量更新它）' if stale else '（当前窗口的用量，不是累加）'}，"
           f"这里应该是 {usage_total(calls[-1])}，你的是 {short(used)}")
    messages = field(state, "messages", "返回的状态")
    expect(isinstance(messages, list) and messages and same(messages[:-1], calls[-1]["messages"]),
           "返回的 messages 应该是最后一次发给模型的 messages，再加上模型的最后一条回复")
    final_text = text_of(calls[-1]["reply"]["content"])
    last = messages[-1]
    expect(isinstance(last, dict) and last.get("role") == "assistant" and final_text in text_of(last.get("content")),
           "返回的 messages 最后一条应该是模型的最终回复（assistant 消息）")


@pytest.mark.grade(GRADE, 1)
def test_fresh_start(grading):
    """没有检查点时从头开始，用传进来的 client 调用模型；返回的状态六个字段都对；模型的回复不论停止原因（max_tokens、stop_sequence、refusal……）和内容块的顺序，都和参考答案一样处理"""
    outcome = grading.outcome("agent_fresh")
    task = outcome.scenario.meta["task"]
    state = final_state(outcome)
    calls = outcome.answered_model_calls()
    expect(calls, "run_agent 一次模型也没有调用")
    made = [c for c in outcome.model_calls if c.get("client") != "given"]
    expect(not made, f"run_agent 有 {len(made)} 次调用模型没有用传进来的 client，而是自己用 make_client() 另造了一个："
                     "调用方传进 client（换了模型、密钥或测试替身），就要用它；只有 client 是 None 时才 make_client()")
    wanted = course.model.request_params()
    for call in outcome.model_calls:
        unlike = [key for key in wanted if not same(call["params"].get(key), wanted[key])]
        expect(not unlike, f"调用模型时要带上 **request_params()，你的请求里 {'、'.join(unlike)} 不是它给的值：没有课程的 "
                           "system 提示，模型不知道恢复之后要先用 list_sent_emails 核实；没有 tools 和 tool_choice，"
                           "模型就不能（或会同时）调用工具")
    first = outcome.model_calls[0]["messages"]
    expect(is_task_only(first, task), "没有检查点时，第一次调用模型只应带一条消息 {'role': 'user', 'content': task}，"
                                      f"你发的是 {short(first, 80)}")
    differs = replies_problem(grading, outcome, 0)  # the scripted model's replies, against the reference on them
    if differs:
        fail(differs)
    check_final_state(state, calls, task, 0, "传进来的任务")
    replies = grading.outcome("agent_replies")  # the model's replies in every shape, against the reference
    for index in range(len(replies.steps)):
        message = replies_problem(grading, replies, index)
        if message:
            fail(message)


@pytest.mark.grade(GRADE, 1)
def test_resume_continues(grading):
    """有检查点就续跑（这一次照文档不传 client）：不重新初始化，任务以检查点为准，turns、tokensUsed 接着算（每一次存档时都和参考答案在同一时刻存下的一样）；工具失败时结果带 is_error: True 和错误文本"""
    outcome = grading.outcome("agent_resume")  # run_agent(task, path=path), as the docstring allows
    checkpoint = outcome.scenario.meta["checkpoint"]
    message = problem(outcome, 0, "不传 client 的 run_agent(task, path=path)")
    expect(message is None, f"{message}{client_advice(message)}")
    state = final_state(outcome)
    calls = outcome.answered_model_calls()
    expect(outcome.model_calls, "从检查点续跑时一次模型也没有调用：cpA 的任务还没做完")
    expect(all(c.get("client") == "make_client" for c in outcome.model_calls),
           "不传 client 调用 run_agent(task, path=path) 时，应该用 make_client() 造的客户端调用模型")
    first = outcome.model_calls[0]["messages"]
    if is_task_only(first, checkpoint["task"]) or is_task_only(first, outcome.scenario.meta["task"]):
        fail(f"恢复时重新初始化了 messages：第一次调用模型只带了任务这一条，检查点里的 {len(checkpoint['messages'])} 条消息被丢掉了")
    expect(same(first, checkpoint["messages"]), "续跑后第一次调用模型时，messages 应该和检查点里的完全一样（不多也不少）")
    expect(calls, "续跑时模型调用失败了")
    check_final_state(state, calls, checkpoint["task"], checkpoint["turns"],
                      "检查点里记的任务（续跑时以检查点为准，不是这次传进来的参数）", checkpoint["tokensUsed"])
    failed = [c for c in outcome.tool_calls if isinstance(c.get("output"), str) and c["output"].startswith("错误")]
    expect(failed, "续跑时模型要读的一份纪要不存在，run_agent 却没有通过 execute_tool 去读它")
    later = min((c["seq"] for c in outcome.model_calls if c["seq"] > failed[0]["seq"]), default=float("inf"))
    again = [c for c in outcome.tool_calls if failed[0]["seq"] < c["seq"] < later
             and c["name"] == failed[0]["name"] and same(c["input"], failed[0]["input"])]
    expect(not again, f"{failed[0]['name']} 返回了错误，你的 run_agent 没等模型回复就又执行了 {short(again[0]['name'] if again else '')}："
                      "出错也是确定的结果，原样交给模型（tool_result 带 is_error: True 和错误文本），要不要重试、换什么办法"
                      "由模型读了错误再决定；自己重试，有副作用的工具就做了两遍")
    uses = {b.get("id"): b for m in state["messages"] for b in tool_uses(m)}
    results = [b for m in state["messages"] if isinstance(m, dict) and isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
               and uses.get(b.get("tool_use_id"), {}).get("input") == failed[0]["input"]]
    expect(results and failed[0]["output"] in text_of(results[0].get("content")),
           "工具失败时，tool_result 的 content 要是 execute_tool 返回的那段错误文本：模型要读到原因才能换个办法")
    flag = results[0].get("is_error")
    expect(flag is True, "工具失败时（execute_tool 返回的文本以「错误」开头），tool_result 要带 is_error: True（布尔值），"
                         f"告诉模型这次调用失败了，你的是 {short(flag) if 'is_error' in results[0] else '没有 is_error'}")
    message = save_points_problem(grading, outcome, 0, checkpoint)  # the counters at every save, not only at the end
    if message:
        fail(message)
    broken = grading.outcome("agent_broken")
    for index, damaged in enumerate(broken.scenario.meta["broken"]):
        message = unreadable_problem(broken, index, damaged)
        expect(message is None, message)



def client_advice(message: str | None) -> str:
    """The hint for a run_agent that used client without making one when it was None."""
    used_none = message and "'NoneType' object has no attribute 'messages'" in message
    return "：client 是 None 时要用 make_client() 造一个" if used_none else ""


def elsewhere(outcome) -> list:
    """Checkpoint-like files run_agent wrote somewhere other than the path it was given."""
    listing = files_after_step(outcome, len(outcome.steps) - 1) or []
    return [name for name in listing if name != outcome.scenario.meta["file"] and name.endswith(".json")]


@pytest.mark.grade(GRADE, 1)
def test_save_points(grading):
    """每一轮在存档点 A（执行工具之前）和存档点 B（下一次调用模型之前）各存一次，存在传进来的 path；最后一次回复之后也存，最后一轮、turns 用满时对账之后也存：run_agent 返回时 path 上的检查点就是它返回的状态；调用模型抛出异常时，path 上还是上一个存档点 B；存档失败时不再执行工具"""
    outcome = grading.outcome("agent_fresh")
    final_state(outcome)
    _, why = on_disk(outcome, outcome.scenario.meta["file"])
    if why and elsewhere(outcome):
        fail(f"run_agent 没有把检查点存到传进来的 path，而是存到了 {short(elsewhere(outcome))}："
             "save_checkpoint 和 load_checkpoint 都要把 path 传下去，否则换一个文件夹就恢复不了")
    expect(outcome.tool_calls, "run_agent 一个工具也没有通过 execute_tool 执行")
    check_save_points(outcome)
    check_save_points(grading.outcome("agent_resume"))  # one of its tools fails: save point B all the same
    broken = grading.outcome("agent_broken")  # its last run: the email task on a full disk
    message = model_error_problem(grading) or full_disk_problem(broken, len(broken.steps) - 1)
    if message:
        fail(message)
    # the file it left, then a power cut at any moment of the run
    message = left_problem(grading, outcome, 0) or run_agent_problem(outcome, grading.reference)
    if message:
        fail(message)
    for name in agent_scenarios(grading):  # every run that returned: the next start resumes from its file
        other = grading.outcome(name)
        for index in range(len(other.steps)):
            message = left_problem(grading, other, index)
            if message:
                fail(message)


def model_error_problem(grading) -> str | None:
    """Why the checkpoint a run left once a model call raised (the API overloaded, from a call on) is not the one on
    disk when that call was made (the last save point B, as the reference's run_agent leaves it); None if it is."""
    outcome = grading.outcome("agent_model_error")
    meta, failing = outcome.scenario.meta, outcome.scenario.steps[0]["model_fails_from"]
    called = (f"第 {failing} 次调用模型时 API 报错（529 overloaded，客户端抛出 APIStatusError；notebook 里 crashing_client "
              "抛 SimulatedCrash 也是这样）")
    when = f"{called}，run_agent 把异常抛给调用方之后"
    if outcome.steps[0]["status"] not in (StepStatus.RETURNED, StepStatus.RAISED):
        return f"{when}：" + problem(outcome, 0, "run_agent")
    failed = next((c for c in outcome.model_calls if c["step"] == 0 and c["status"] != 200), None)
    if failed is None:
        return None  # it never got that far: the other checks say why
    if outcome.steps[0]["status"] == StepStatus.RETURNED:  # the caller takes the task for done
        return (f"{called}，你的 run_agent 没有把异常抛出去，而是返回了 state：调用方（守护进程、notebook 里的下一个单元格）"
                "就当任务已经做完，不会再续跑，任务停在半路。调用模型出错时可以重试，重试不成要把异常抛给调用方")
    message = _left_after_error(grading, outcome.read_before.get(1, {}).get(meta["file"]), failed, when)
    if message:
        return message
    # the same run alone in its process: what the process's end (atexit, finalizers) did counts too
    ended = grading.outcome("agent_model_error_ended")
    failed = next((c for c in ended.model_calls if c["step"] == 0 and c["status"] != 200), None)
    if ended.steps[0]["status"] != StepStatus.RAISED or failed is None:
        return None  # returned, or never got that far: said above, on the same run
    message = _left_after_error(grading, ended.files_after.get(meta["file"]), failed,
                                f"{when}、进程退出（或 kernel 关闭）之后")
    return message and message + "（进程退出时运行的 atexit 函数、finalizer 写下的也算）"


def _left_after_error(grading, left, failed, when) -> str | None:
    saved, error = reference_load(grading.reference, None if left is None else left.encode("utf-8"))
    if error is not None or not isinstance(saved, dict):
        return f"{when}，path 上" + ("没有检查点" if left is None else "的文件不是 load_checkpoint 读得出来的检查点")
    wrong = checkpoint_differences(saved, saved_state(failed))
    if not wrong:
        return None
    return (f"{when}，path 上的检查点和调用模型那一刻磁盘上的（上一个存档点 B）不一样（{'、'.join(wrong)}）：这次调用模型"
            "没有得到回复，磁盘上应该还是存档点 B，不要在出错时再存档（finally 或 except 里的 save_checkpoint）"
            + ("：那时 turns 已经加过 1，回复却没有，存下去，重启后 turns 就比真正调用过模型的次数多" if "turns" in wrong else ""))


def agent_scenarios(grading) -> list:
    """The scenarios that run run_agent with the grader's save, load and reconcile (this cell's points)."""
    return [name for name, scenario in grading.scenarios.items()
            if scenario.standins == STANDINS and any(step.get("name") == "run_agent" for step in scenario.steps)]


def left_problem(grading, outcome, index: int) -> str | None:
    """Why the checkpoint run number `index` left at its path, read as the reference's load_checkpoint reads it, is
    not the state the run returned; None if it is, if the run did not return (the other checks say why), or if a
    later run was given the same path (what is there is that run's)."""
    file = checkpoint_file(outcome, index)
    later = {checkpoint_file(outcome, number) for number in range(index + 1, len(outcome.steps))}
    state = outcome.steps[index].get("value")
    if outcome.steps[index]["status"] != StepStatus.RETURNED or not isinstance(state, dict) or file in later:
        return None
    _, why = on_disk(outcome, file)
    if why:
        return f"run_agent 结束时{why}" + (f"。{KEEP_CHECKPOINT_ADVICE}" if removed(outcome, file) else "")
    saved, error = reference_load(grading.reference, outcome.files_after[file].encode("utf-8"))
    if error is not None:
        return f"run_agent 结束时，path 上的文件不是 load_checkpoint 读得出来的检查点（它抛出了 {type(error).__name__}）"
    extra = extra_fields_said(saved, "run_agent 结束时，磁盘上的检查点")
    if extra:
        return extra
    wrong = [key for key in checkpoint_differences(saved, state) if key != "task"]  # test_resume_continues's to judge
    if wrong and not continues(state, began_with(outcome, index)):
        return (f"run_agent 结束时，磁盘上的检查点和它返回的最终状态不一样（{'、'.join(wrong)}），返回的对话也不是从 path 上"
                "原来那份检查点接着来的：run_agent 开头要用 load_checkpoint(path) 读磁盘上此刻的检查点。同一个 kernel 里"
                "之前的运行留在内存里的状态可能早已过时（文件被挪走，或换成了别的检查点）")
    if wrong:
        return (f"run_agent 结束时，磁盘上的检查点和它返回的最终状态不一样（{'、'.join(wrong)}）："
                f"{missing_save(outcome, index, saved)}")
    return None


def began_with(outcome, index: int) -> dict | None:
    """The checkpoint at the path as run number `index` began (None: none)."""
    meta = outcome.scenario.meta
    return meta["checkpoints"][index] if "checkpoints" in meta else meta.get("checkpoint")


def continues(state: dict, checkpoint: dict | None) -> bool:
    """Whether the conversation `state` returned goes on from `checkpoint`'s (any does from none)."""
    if checkpoint is None:
        return True
    messages = state.get("messages")
    return isinstance(messages, list) and same(messages[:len(checkpoint["messages"])], checkpoint["messages"])


def missing_save(outcome, index: int, saved: dict) -> str:
    """Which save run number `index` left out, as the checkpoint it left shows: a call still pending there after
    reconcile with no model call, or after the last turn's tool; else the save after the model's last reply."""
    if saved.get("pendingToolUse") is None:
        return "模型的最后一条回复追加进 messages 之后也要存档，否则重启后又会从上一轮接着跑"
    if not any(call["step"] == index for call in outcome.model_calls):
        return ("检查点里的悬空调用对账之后没有存档。恢复时要先对账、存档，即使 turns 已经用满、不再调用模型也一样："
                "否则每次重启都要再对账一次，已经发出的邮件会被报成「结果未知」")
    return ("最后一轮的工具执行完、结果追加进 messages 之后没有存档（这一轮的存档点 B）。turns 达到 MAX_TURNS、"
            "不再调用模型时，最后一轮的存档点 B 也要存：否则磁盘上停在存档点 A，下次启动又要对账，"
            "已经发出的邮件会被报成「结果未知」")


def check_save_points(outcome):
    """At each tool call the checkpoint on disk has it pending (save point A); at each model call after the first,
    it has what the request sends, nothing pending (save point B)."""
    events = sorted([("model", c) for c in outcome.model_calls] + [("tool", c) for c in outcome.tool_calls],
                    key=lambda event: event[1]["seq"])
    asked = None  # the tool_use the model asked for last
    for kind, event in events:
        snapshot = saved_state(event)
        if kind == "tool":
            expect(asked is not None, "run_agent 在模型要求之前就执行了工具")
            wanted = {"id": asked.get("id"), "name": asked.get("name"), "input": asked.get("input")}
            recorded = snapshot.get("pendingToolUse")
            extra = sorted(set(recorded) - set(wanted)) if isinstance(recorded, dict) else []
            expect(not extra or not same({k: recorded.get(k) for k in wanted}, wanted),
                   f"存档点 A 的 pendingToolUse 只记 id、name、input 三项，你的还多了 {short(extra)}"
                   "（整个 tool_use 块或 model_dump() 的结果不是检查点格式）")
            if isinstance(recorded, dict) and (recorded.get("id"), recorded.get("name")) == (wanted["id"], wanted["name"]):
                expect(same(recorded.get("input"), wanted["input"]),
                       f"执行工具 {asked.get('name')} 时，检查点的 pendingToolUse 记下了这次调用的 id 和 name，input 却是 "
                       f"{short(recorded.get('input'))}，不是模型给的 {short(wanted['input'])}"
                       "：input 要原样记下 tool_use 的 input 对象（dict），不要转成字符串，恢复时重新执行用的就是它")
            expect(same(recorded, wanted), f"执行工具 {asked.get('name')} 时，磁盘上的检查点还没有记下这次调用"
                                           f"（pendingToolUse 应该是它的 id、name、input，实际是 {short(recorded)}）。"
                                           "存档点 A 要在模型响应追加进 messages 之后、执行工具之前")
            last = snapshot.get("messages", [None])[-1] if isinstance(snapshot.get("messages"), list) else None
            expect(any(b.get("id") == asked.get("id") for b in tool_uses(last)),
                   "存档点 A 保存的 messages 最后一条应该是要求这次调用的 assistant 消息")
            asked = None
        else:
            if event is not outcome.model_calls[0]:
                expect(snapshot.get("pendingToolUse", "缺少") is None and same(snapshot.get("messages"), event["messages"]),
                       "再次调用模型时，磁盘上的检查点还没有记下上一个工具的结果。存档点 B 要在 tool_result "
                       "追加进 messages、pendingToolUse 清回 None 之后，工具失败了也一样")
            content = event["reply"].get("content") if event["status"] == 200 else []
            asked = next((b for b in content if b.get("type") == "tool_use"), None)


@pytest.mark.grade(GRADE, 1)
def test_resume_pending(grading):
    """续跑前先给悬空调用对账（课程没提过的工具不重新执行，补 is_error）；发信途中崩溃或被中断，重启后邮件不会发第二封，被中断的那次调用也是结果未知；等模型回复时被中断，检查点停在上一个存档点"""
    outcome = grading.outcome("agent_pending")
    checkpoint = outcome.scenario.meta["checkpoint"]
    message = problem(outcome, 0, "run_agent(task, client=None, path=path)")  # client=None, as the signature allows
    expect(message is None, f"{message}{client_advice(message)}")
    final_state(outcome)
    expect(outcome.model_calls, "从 cpB 续跑时一次模型也没有调用")
    first = outcome.model_calls[0]
    count = len(checkpoint["messages"])
    sent = first["messages"] if isinstance(first["messages"], list) else []
    kept = same(sent[:count], checkpoint["messages"])
    added = sent[count:] if kept else []
    # the checkpoint's own messages changed on the way (its task reworded, a message dropped): no pairing to look for
    expect(not sent or kept,
           f"续跑后第一次调用模型时，检查点里原有的 {count} 条 messages 要原样发给模型（对账只在它们后面补上一条 "
           "tool_result）：你的 run_agent 改动了其中的内容（或少发了几条）。任务以检查点里记的为准，对话也一字不改")
    paired = bool(added) and isinstance(added[0], dict) and any(
        isinstance(b, dict) and b.get("tool_use_id") == checkpoint["pendingToolUse"]["id"]
        for b in (added[0].get("content") if isinstance(added[0].get("content"), list) else []))
    expect(first["status"] == 200 and paired,
           "检查点里有悬空调用（pendingToolUse 不是 None）时，要先对账（调用 reconcile）再调用模型："
           "否则 API 会因为 tool_use 缺了对应的 tool_result 而返回 400")
    expect(len(added) == 1, f"对账补上了 tool_result，但续跑后第一次调用模型时，messages 在它后面还多了 {len(added) - 1} 条"
                            f"（{short(added[1:], 80)}）：对账之后的检查点就和一份刚写完存档点 B 的一样，"
                            "直接用它的 messages 调用模型，不多也不少")
    snapshot = saved_state(first)
    expect(snapshot.get("pendingToolUse", "缺少") is None
           and same(snapshot.get("messages"), sent),
           "对账之后、调用模型之前要先存档（save_checkpoint）：否则这时崩溃，重启后检查点里还是那个悬空调用，"
           "只读工具会再执行一次、结果也可能变了")
    message = counters_problem(snapshot, checkpoint)
    expect(message is None, message)
    message = run_agent_problem(outcome, grading.reference)
    if message:
        fail(message)

    dangling = grading.outcome("agent_dangling")
    for index in range(len(dangling.steps)):
        message = dangling_problem(grading, dangling, index)
        if message:
            fail(message)

    crash = grading.outcome("agent_crash_send")
    if crash.steps[0]["status"] != StepStatus.CRASHED_BY_GRADER:
        fail("发信任务没有走到 send_email：" + (problem(crash, 0, "run_agent") or "run_agent 没有通过 execute_tool 执行 send_email"))
    message = problem(crash, 1, "崩溃后重启的 run_agent")
    if message:
        fail(message)
    one_email(crash, "提示：存档点 A 要在执行工具之前保存；恢复时检查点里有悬空调用就先对账")
    resumed = [call for call in crash.model_calls if call["step"] == 1]
    snapshot = saved_state(resumed[0]) if resumed else {}
    expect(not resumed or (snapshot.get("pendingToolUse", "缺少") is None
                           and same(snapshot.get("messages"), resumed[0]["messages"])),
           "悬空的 send_email 对账之后、调用模型之前也要先存档：对账补上的 is_error 结果和存档点 B 一样要落盘，"
           "不管悬空的是什么工具")
    message = interrupted_send_problem(grading.outcome("agent_interrupt_send"))
    expect(message is None, message)
    message = interrupted_model_problem(grading.outcome("agent_interrupt_model"))
    expect(message is None, message)


def interrupted_model_problem(outcome) -> str | None:
    """What is wrong with a fresh run interrupted (KeyboardInterrupt) while the model had not yet answered its n-th
    call: the checkpoint must be left as it was when that call went out (the last save point, or none); None if so."""
    number = outcome.scenario.crash["interrupt_at_model_call"]
    where = f"从头运行的任务在第 {number} 次调用模型、回复还没到的时候被中断（KeyboardInterrupt：notebook 里按下「中断」）"
    asked = [c for c in outcome.model_calls if c.get("interrupted")]
    if not asked:
        return (f"{where}：你的 run_agent 没有走到第 {number} 次调用模型："
                + (problem(outcome, 0, "run_agent") or "它提前结束了"))
    if sum(1 for c in outcome.model_calls if c["step"] == 0) > number:
        return None  # the run went on in a thread of its own (the interrupt stops only the main one): saves as ever
    then = asked[0].get("snapshot") or {}
    after = outcome.files_after.get(outcome.scenario.meta["file"])
    if after is None and then.get("missing"):
        return None
    left, _ = on_disk(outcome, outcome.scenario.meta["file"])
    if "state" in then and same(left, then["state"]):
        return None
    before = (f"检查点是 turns={then['state'].get('turns')!r} 的那一份" if isinstance(then.get("state"), dict)
              else "path 上还没有检查点")
    now = ("path 上的文件不见了" if after is None else f"留下的是 turns={left.get('turns')!r} 的一份"
           if isinstance(left, dict) else "留下的文件读不出来")
    return (f"{where}，中断的那一刻{before}，run_agent 结束后{now}：中断时不要再存档（不要在 except KeyboardInterrupt "
            "或 finally 里 save_checkpoint）：这一轮的 turns 已经算上了，回复却没到，存下它，续跑时这一轮就被算了两次。"
            "检查点只在存档点 A、B 写，中断时它停在上一个存档点，续跑就从那里接着做")


def interrupted_send_problem(outcome) -> str | None:
    """What is wrong with a run interrupted (KeyboardInterrupt) once send_email had delivered, then resumed: one
    email, and the send's tool_result either its own output (an interrupt that landed late, once the send had returned
    and save point B was on disk) or an is_error that says the outcome is unknown (reconcile's); None if so."""
    where = "发信任务在 send_email 送达之后、返回之前被中断（KeyboardInterrupt：notebook 里按下「中断」），再续跑"
    sent = [c for c in outcome.tool_calls if c["step"] == 0 and c["name"] == "send_email"]
    if not sent:
        return "发信任务没有走到 send_email：" + (problem(outcome, 0, "run_agent") or "run_agent 没有通过 execute_tool 执行 send_email")
    message = problem(outcome, 1, "中断后重启的 run_agent")
    if message:
        return f"{where}：{message}"
    emails = outcome.emails_during_steps()
    if emails != 1:
        return f"{where}，邮件服务器一共收到 {emails} 封，应该恰好 1 封：中断时信已经发出去了"
    state = returned(outcome, 1, "中断后重启的 run_agent")
    messages = state.get("messages") if isinstance(state, dict) and isinstance(state.get("messages"), list) else []
    uses = [b for m in messages if m.get("role") == "assistant" and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "send_email"]
    results = [b for m in messages if m.get("role") == "user" and isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
               and uses and b.get("tool_use_id") == uses[0]["id"]]
    if not results:
        return f"{where}，返回的对话里这次 send_email 没有 tool_result"
    block = results[0]
    text = text_of(block.get("content"))
    if not block.get("is_error") and any(c.get("output") and carries_output(block.get("content"), c["output"])
                                         for c in sent):
        return None
    wording = unknown_wording_problem(text) if block.get("is_error") is True else "没有标 is_error"
    if wording is None:
        return None
    return (f"{where}，这次 send_email 的 tool_result 是「{short(text, 60)}」：{wording}。执行被打断时工具没有返回，"
            "谁也不知道信发出去没有：不要在 except 或 finally 里替它记一个「失败」「已中断」的结果再存档，让 KeyboardInterrupt "
            "抛出去，检查点停在存档点 A（pendingToolUse 还记着它），续跑时由 reconcile 补 is_error：结果未知，请先确认现状")


def dangling_problem(grading, outcome, index: int) -> str | None:
    """How run number `index`, resumed with a call left dangling (of a tool no list names, or send_email) or with a
    user's text last, did otherwise than the reference's run_agent on the same checkpoint, up to its first model call
    (what comes after is the other checks' to judge), or called the model through another client than this run's;
    None if it did the same (and for the step that saves a checkpoint between runs)."""
    step = outcome.scenario.steps[index]
    if step["name"] != "run_agent":
        return None
    checkpoint = outcome.scenario.meta["checkpoints"][index]
    pending = checkpoint["pendingToolUse"]
    ran = [c for c in outcome.student_tool_calls(index) if pending and c["name"] == pending["name"]]
    calls = [c for c in outcome.model_calls if c["step"] == index]
    actions = reference_run(grading, step["args"][0], [], calls, outcome.student_tool_calls(index), checkpoint)[0]
    if ran and not any(action[0] == "tool" and action[1] == pending["name"] for action in actions):
        return (f"从检查点续跑：悬空的是 {pending['name']}（不在 READ_ONLY_TOOLS 里，课程没提过的工具，崩溃前可能已经生效），"
                f"你的 run_agent 却通过 execute_tool 又执行了它 {len(ran)} 次。有悬空调用就先交给 reconcile：不在只读之列的"
                "一律不执行、补 is_error，再存档、调用模型；不能只把 send_email 当成不能重来的")
    given = step["kwargs"].get("client") is not None
    # a given client never used at all is test_fresh_start's to judge: here, one kept from an earlier run
    ignored = any(c.get("client") != "given" for c in grading.outcome("agent_fresh").model_calls)
    astray = [c for c in calls if c.get("client") != ("given" if given else "make_client") and not (given and ignored)]
    if astray:
        return ("同一个进程里先后几次运行 run_agent，" + (
            "这一次传进来了 client，你的 run_agent 却没有用它调用模型" if given else
            "这一次 client=None，你的 run_agent 却用之前某次运行传进来的 client 调用了模型")
            + "：每次运行都用这一次传进来的 client，只有它是 None 时才 make_client()；不要把 client 存在全局变量里留给以后"
              "（notebook 里崩溃用的 crashing_client、重启用的计数客户端就是一次次传进去的）")
    saves = [c for c in outcome.standin_calls if c["step"] == index and c["name"] == "save_checkpoint"
             and (not calls or c["seq"] < calls[0]["seq"])]
    if pending is not None and saves:  # the save after reconcile, before the first model call
        counted = counters_problem(saves[0].get("state") or {}, checkpoint)
        if counted:
            return f"{resumed_from(outcome, index)}悬空的是 {pending['name']}，{counted}"
    differs = replies_problem(grading, outcome, index, checkpoint, model_calls=1)
    return differs and f"{resumed_from(outcome, index)}{differs}"


def counters_problem(snapshot: dict, checkpoint: dict) -> str | None:
    """The checkpoint saved after reconcile (on disk when the model is called next) keeps the resumed checkpoint's
    turns and tokensUsed, whatever reconcile answered: reconcile is no model call. None if it does (or saved none:
    the other checks say so)."""
    if snapshot.get("pendingToolUse", "缺少") is not None:
        return None
    for name in ("turns", "tokensUsed"):
        if not same(snapshot.get(name), checkpoint.get(name)):
            return (f"对账之后存下的检查点里 {name} 是 {short(snapshot.get(name))}，续跑的检查点里原来是 "
                    f"{short(checkpoint.get(name))}：对账只补上一条 tool_result，不是一次模型调用，不管补的是执行结果还是"
                    " is_error，turns、tokensUsed 都原样沿用（一个数模型调用，一个记上一次响应的大小）")
    return None


def resumed_from(outcome, index: int) -> str:
    """What the feedback says of the checkpoint run number `index` of agent_dangling resumed from, where it is
    not the usual one left dangling by a crash."""
    checkpoint = outcome.scenario.meta["checkpoints"][index]
    before = outcome.scenario.steps[index - 1] if index else {}
    if before.get("name") == "save_checkpoint":
        return (f"同一个进程里，之前运行过的 path 上的检查点被换成了另一份（save_checkpoint 存进去的，悬空的是 "
                f"{checkpoint['pendingToolUse']['name']}），再在这个 path 上运行 run_agent：")
    if checkpoint["pendingToolUse"] is None:
        last = checkpoint["messages"][-1]["content"]
        failed = isinstance(last, list) and any(isinstance(b, dict) and b.get("is_error") is True for b in last)
        ending = ("只有任务本身" if len(checkpoint["messages"]) == 1 else
                  "一个失败的工具结果（is_error: true）：失败也是已知的结果，由模型读了再决定，不要替它重试" if failed else
                  "工具结果后面跟着用户补的一段文字")
        return (f"检查点的最后一条消息是 user 消息（{ending}），没有悬空调用，任务还没做完：只有最后一条是 assistant 消息时"
                "才原样返回，其余情况直接进入循环调用模型。")
    return ""


@pytest.mark.grade(GRADE, 1)
def test_max_turns(grading):
    """MAX_TURNS 跨重启累计：崩溃重启后总共只调用 MAX_TURNS 次模型；已经用满、或任务已经做完时不再调用"""
    max_turns = grading.max_turns
    crash = grading.outcome("agent_max_turns_crash")
    start = crash.scenario.meta["checkpoint"]["turns"]
    if crash.steps[0]["status"] != StepStatus.CRASHED_BY_GRADER:
        asked = sum(bool(tool_uses({"content": call["reply"].get("content")})) for call in crash.answered_model_calls())
        unrun = (f"模型在回复里要了 {asked} 次工具，你的 run_agent 只通过 execute_tool 执行了 {len(crash.tool_calls)} 次："
                 "每次模型要工具都要经 execute_tool 执行，同样的调用以前的输出不能拿来用（只读不是输出不变）"
                 if asked > len(crash.tool_calls) else None)
        fail(f"从 turns = {start} 的检查点续跑一个停不下来的任务，第 {crash.scenario.crash['before_tool_call']} "
             "次工具调用之前就结束了：" + (problem(crash, 0, "run_agent") or unrun
                                    or f"run_agent 只调用了 {len(crash.answered_model_calls())} 次模型"))
    state = final_state(crash, 1)
    total = len(crash.answered_model_calls())
    restarted = len([call for call in crash.answered_model_calls() if call["step"] == 1])
    expect(total >= max_turns - start,
           f"从 turns = {start} 的检查点续跑一个停不下来的任务，中途崩溃再重启：到 MAX_TURNS 为止还应该再调用 "
           f"{max_turns - start} 次模型，你的 run_agent 一共只调用了 {total} 次就停下了（重启之后调用了 {restarted} 次）："
           "重启后要从检查点接着跑（有悬空调用就先对账），直到模型不再调用工具或 turns 达到 MAX_TURNS")
    expect(total == max_turns - start,
           f"MAX_TURNS 要跨重启累计：检查点里 turns = {start}，中途崩溃再重启，前后一共只能再调用 "
           f"{max_turns - start} 次模型，你的 run_agent 调用了 {total} 次"
           + ("（重启后 turns 被清零了？）" if total > max_turns - start + 1 else ""))
    expect(same(state.get("turns"), max_turns), f"达到上限时 turns 应该是 {max_turns}，你的是 {short(state.get('turns'))}")
    messages = state.get("messages") if isinstance(state.get("messages"), list) and state.get("messages") else [None]
    expect(state.get("pendingToolUse", "缺少") is None and not tool_uses(messages[-1]),
           f"第 {max_turns} 轮模型要求的工具也要执行，结果存进检查点（存档点 B）再停下：停在悬空调用上，"
           "返回的对话不完整，下次恢复还得对账")

    spent = grading.outcome("agent_max_turns_spent")
    checkpoint = spent.scenario.meta["checkpoint"]
    state = final_state(spent)
    spent_turns = checkpoint["turns"]
    expect(not spent.model_calls, f"检查点里的 turns 已经是 {spent_turns}，超过了 MAX_TURNS（{max_turns}；比如存档之后"
                                  f"调低了上限），恢复后不应该再调用模型，你的 run_agent 又调用了 {len(spent.model_calls)} 次"
                                  "：判断用 turns < MAX_TURNS，不要用 !=")
    expect(same(state.get("turns"), spent_turns) and same(state.get("tokensUsed"), checkpoint["tokensUsed"]),
           "没有再调用模型时，turns、tokensUsed 都应该原样保留检查点里的值")
    expect(state.get("pendingToolUse", "缺少") is None and isinstance(state.get("messages"), list)
           and pairing_problem(state["messages"]) is None,
           f"检查点里的 turns 已经是 {spent_turns}（MAX_TURNS 是 {max_turns}），可还有一个悬空调用：先对账、存档，再结束，"
           "否则返回的对话里 tool_use 缺了 tool_result")

    done = grading.outcome("agent_finished")
    for index in range(len(done.steps)):
        message = finished_problem(grading, done, index)
        if message:
            fail(message)


def finished_problem(grading, outcome, index: int) -> str | None:
    """How run number `index`, resumed from a checkpoint whose task is done (its last message the model's closing
    reply, in one of the shapes a reply without a tool call has), did otherwise than the reference's on it."""
    meta = outcome.scenario.meta
    checkpoint, file = meta["checkpoints"][index], meta["files"][index]
    done = f"检查点的最后一条消息已经是模型的收尾回复（{describe_reply(meta['closings'][index])}），任务做完了"
    calls = [c for c in outcome.model_calls if c["step"] == index]
    actions, _, state, saved, _ = reference_run(grading, meta["task"], [], calls, outcome.student_tool_calls(index),
                                             checkpoint)
    if len(calls) > sum(action[0] == "model" for action in actions):  # the reference calls nothing here
        return (f"{done}，恢复后不应该再调用模型：你的 run_agent 又调用了 {len(calls)} 次，真实的 API 会把结尾的 "
                "assistant 消息当成要它接着写的开头")
    trouble = problem(outcome, index, "你的 run_agent")
    if trouble:
        return f"{done}：{trouble}"
    # the task is test_resume_continues's to judge
    wrong = [key for key in checkpoint_differences(outcome.steps[index]["value"], state) if key != "task"]
    if wrong:
        return f"{done}，run_agent 应该原样返回检查点里的状态，你的返回值里 {'、'.join(wrong)} 不一样"
    left, why = on_disk(outcome, file)
    if removed(outcome, file):
        return f"{done}，run_agent 返回之后，{why}。{KEEP_CHECKPOINT_ADVICE}"
    wrong = [key for key in checkpoint_differences(left, saved) if key != "task"]
    if wrong:
        return f"{done}，path 上的检查点要原样留着，你的 run_agent 返回之后{why or '它的 ' + '、'.join(wrong) + ' 变了'}"
    return None
