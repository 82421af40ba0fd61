"""run_agent (test_run_agent, 2 points): the ledger wired into the loop, end to end.

save_checkpoint and load_checkpoint are the grader's own here (lesson 3's code earns no points
in this lesson); execute_with_ledger and reconcile are the student's. The email task runs from
scratch, then is killed at each moment of its send: as send_email reaches the grader (the
intent written, nothing delivered) and right after the server delivered it (no outcome yet).
Effects are counted at the grader's mail server, by Message-ID.
"""
import json
import random

import pytest

from autograder.contract import MISSING, carries_output, error_flag_right, same_messages
from autograder.protocol import StepStatus
from autograder.sandbox import Scenario

from autograder.hidden_tests.crashes import describe, killed_files
from autograder.hidden_tests.test_run_agent import interrupted_model_problem
from autograder.hidden_tests.helpers import emails_in_step, full_disk_problem, on_disk, unreadable_problem, usage_total

from .helpers import (expect, expected_action, fail, keeps_earlier_records, keyed, of, outcome_written_at,
                      pairing_problem, problem, records_in, returned, same, saved_state, short)
from .effects_runs import effects_problem

GRADE = "test_run_agent"


def send_id(outcome) -> str | None:
    """The tool_use id the model gave the send_email call (from the grader's own record of its replies): the one in
    the last reply before the first send ran (a run that called the model twice kept the second reply), else the
    first asked for."""
    first_send = min((c["seq"] for c in outcome.tool_calls if c["name"] == "send_email"), default=float("inf"))
    asked = [(model_call["seq"], block.get("id")) for model_call in outcome.model_calls
             for block in (model_call.get("reply") or {}).get("content") or []
             if block.get("type") == "tool_use" and block.get("name") == "send_email"]
    before = [call_id for seq, call_id in asked if seq < first_send]
    return before[-1] if before else asked[0][1] if asked else None


def unknown_results(messages) -> int:
    return sum(1 for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error") is True)


def received(outcome, call_id) -> str:
    mine = outcome.delivered_ids.count(keyed(call_id)) if call_id else 0
    return f"一共收到 {len(outcome.delivered_ids)} 封，其中带这次调用的键的 {mine} 封"


def key_fault(outcome, call_id: str) -> str | None:
    """What is wrong, if a send_email ran with a key other than its tool_use id: the email went out, but not as this
    call's (the grader's server, lookup_effect and the ledger all know the call by its id)."""
    keys = {c.get("key") for c in outcome.tool_calls if c["name"] == "send_email"} - {None, call_id}
    asked = {b.get("id") for c in outcome.model_calls for b in ((c.get("reply") or {}).get("content") or [])
             if isinstance(b, dict) and b.get("type") == "tool_use"}
    if keys and keys <= asked:  # each the id of a call the model made later: a second email asked for, keyed right
        return (f"带着别的键的那封信，是模型后来另要的一次 send_email（新的调用，id {short(sorted(map(str, keys))[0])}）发出的："
                "续跑时这次调用大概得到了 is_error（结果未知）或者一个「失败」的结果，模型就再要一次。服务器按键答得上来"
                "（只有 intent 时 lookup_effect(name, id)：查到了就记下它的回答，没查到就经台账执行），结果就是确定的，"
                "只有服务器答不上来时才补 is_error")
    if not keys:
        return None
    return (f"send_email 执行时带的幂等键是 {short(sorted(map(str, keys))[0])}，不是这次调用的 tool_use id（{call_id}）："
            "键就用 pendingToolUse 的 id——它在重试之间不变、每次调用都不同，服务器、lookup_effect(name, id) 和 reconcile "
            "都按它认出这次调用；另造的键（哪怕存进了检查点），对账时按 id 查不到，参数一样的两次调用还会撞在一起")


def results_in(state: dict) -> set:
    """The tool_use ids that the tool_results in a checkpoint's messages answer."""
    messages = state.get("messages") if isinstance(state.get("messages"), list) else []
    return {b.get("tool_use_id") for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"}


def unanswered_save(outcome) -> bool:
    """Whether run_agent saved a checkpoint whose last message asks for a tool that pendingToolUse does not name:
    a crash right after it, and the resume finds no dangling call to reconcile, its tool_use left unpaired (a 400)."""
    for save in outcome.standin_calls:
        state = save.get("state") if save.get("name") == "save_checkpoint" else None
        messages = state.get("messages") if isinstance(state, dict) else None
        last = messages[-1] if isinstance(messages, list) and messages else None
        if not isinstance(last, dict) or last.get("role") != "assistant" or not isinstance(last.get("content"), list):
            continue
        pending = state.get("pendingToolUse")
        asked = {b.get("id") for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}
        if asked - {pending.get("id") if isinstance(pending, dict) else None}:
            return True
    return False


FIELDS_IN_ORDER = ("version", "task", "turns", "tokensUsed", "messages", "pendingToolUse")  # lesson 3's checkpoint
FIELDS = set(FIELDS_IN_ORDER)


def stale_pending_save(outcome) -> bool:
    """Whether run_agent saved a checkpoint whose pendingToolUse names a call its messages already answer: a crash
    right after it, and the resume reconciles that call again, a second tool_result for one tool_use (a 400). Only
    saves after the step's first model call: the one after reconcile shows reconcile's work (test_every_crash_of_the_send)."""
    first = {}
    for call in outcome.model_calls:
        first.setdefault(call["step"], call["seq"])
    for save in outcome.standin_calls:
        if save.get("seq", 0) < first.get(save.get("step"), float("inf")):
            continue
        state = save.get("state") if save.get("name") == "save_checkpoint" else None
        pending = state.get("pendingToolUse") if isinstance(state, dict) else None
        if isinstance(pending, dict) and pending.get("id") in results_in(state):
            return True
    return False


def save_points_problem(outcome) -> str | None:
    """What is wrong with run_agent's save points B and its last save: each later model call finds the checkpoint
    holding the results it sends (pendingToolUse None), and a run that returns leaves on disk the state it returns."""
    if stale_pending_save(outcome):
        return ("你的 run_agent 存下了一份检查点，pendingToolUse 还是一个已经有了 tool_result 的调用：此刻崩溃，续跑时又对一次账，"
                "同一个 tool_use 得到第二个 tool_result（API 回 400）。补上工具结果之后要把 pendingToolUse 设为 None，再存存档点 B")
    saves = [c for c in outcome.standin_calls if c.get("name") == "save_checkpoint" and isinstance(c.get("state"), dict)]
    runs = outcome.scenario.meta.get("runs")  # agent_effects: a run each step, some resuming (reconcile's state)
    fresh = {i for i in range(len(outcome.steps))
             if (runs[i]["checkpoint"] if runs else outcome.scenario.meta.get("checkpoint")) is None}
    missing = next((sorted(FIELDS - set(c["state"])) for c in saves
                    if c.get("step") in fresh and FIELDS - set(c["state"])), None)
    if missing:
        return (f"你的 run_agent 存下的检查点缺少 {'、'.join(missing)}：检查点的格式是第 3 课定的六个字段（"
                + "、".join(FIELDS_IN_ORDER) + "），新任务的 state 也要有全")
    seen = set()
    for call in outcome.model_calls:
        before = [c["state"] for c in saves if c.get("step") == call["step"] and c["seq"] < call["seq"]]
        if call["step"] in seen and before:  # the last save before it (the grader's save_checkpoint saw each)
            saved = before[-1]
            sent = results_in({"messages": call.get("messages")})
            if saved.get("pendingToolUse", "缺少") is not None or not sent <= results_in(saved):
                return (f"再次调用模型时，磁盘上的检查点还没有记下上一个工具的结果（存档点 B；它的 pendingToolUse 是 "
                        f"{short(saved.get('pendingToolUse', '缺少'))}，应该是 None）：此刻崩溃，续跑时又要对账，"
                        "只读工具再执行一次。每一轮在 tool_result 追加进 messages、pendingToolUse 设为 None 之后存存档点 B")
        seen.add(call["step"])
    for index, step in enumerate(outcome.steps):
        mine = [c["state"] for c in saves if c.get("step") == index]
        value = step.get("value") if step["status"] == StepStatus.RETURNED else None
        if mine and isinstance(value, dict) and not (
                same_messages(mine[-1].get("messages"), value.get("messages"))
                and same(mine[-1].get("pendingToolUse"), value.get("pendingToolUse"))):
            return ("run_agent 返回的状态和它最后存下的检查点不一样：模型最后一次回复（不要工具）之后也要存档，"
                    "否则磁盘上停在上一个存档点，下次运行又要调用模型，把做完的任务再做一轮")
    return None


def final(outcome, index: int, what: str = "run_agent") -> dict:
    state = returned(outcome, index, what)
    expect(isinstance(state, dict), f"{what} 应该返回最终状态（一个 dict），你的函数返回了 {short(state)}")
    expect(state.get("pendingToolUse", "缺少") is None, "任务结束时 pendingToolUse 应该是 None")
    return state


def check_counters(outcome, state: dict, turns_before: int, where: str):
    """turns and tokensUsed as the reference keeps them on the same run: turns counts every model call since the
    task began, across restarts; tokensUsed is the last reply's input_tokens + output_tokens."""
    calls = outcome.answered_model_calls()
    if not calls:
        return
    wanted = turns_before + len(calls)
    expect(same(state.get("turns"), wanted),
           f"{where}，模型一共被调用了 {len(calls)} 次" + (f"（检查点里原来是 {turns_before}）" if turns_before else "")
           + f"，turns 应该是 {wanted}，你的是 {short(state.get('turns'))}：每调用一次模型 turns 加一（一轮只调用一次模型），"
             "turns 跨重启接着数，MAX_TURNS 限的是整个任务的轮数，续跑时不能从 0 重新数")
    expect(same(state.get("tokensUsed"), usage_total(calls[-1])),
           f"{where}，tokensUsed 应该是最近一次响应的 input_tokens + output_tokens（{usage_total(calls[-1])}），"
           f"你的是 {short(state.get('tokensUsed'))}：每次调用模型之后都要更新")


def first_request(outcome, step: int):
    asked = [c for c in outcome.model_calls if c["step"] == step]
    return asked[0]["messages"] if asked else None


def result_for(messages, call_id: str):
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                return block
    return None


@pytest.mark.grade(GRADE, 1)
def test_sends_through_the_ledger(grading):
    """发信任务从头跑（每次运行都用这一次传进来的 client 调用模型）：send_email 带着它的 tool_use id 作键发出一封，台账（检查点旁边的 ledger_path(path)）里有它的 intent 和 outcome，outcome 在存档点 B 之前写好；再调用模型之前已存好存档点 B，返回时 path 上就是返回的状态；检查点或台账读不出来、存档失败时让错误抛出去，不调用模型、不执行工具"""
    outcome = grading.outcome("agent_email")
    state = final(outcome, 0)
    check_counters(outcome, state, 0, "发信任务从头跑")
    call_id = send_id(outcome)
    expect(call_id, "发信任务里模型没有要求 send_email：run_agent 没有把工具结果交回给模型吗？")
    expect(outcome.delivered_ids == [keyed(call_id)],
           f"邮件服务器{received(outcome, call_id)}，应该正好 1 封、带这次调用的键（Message-ID {keyed(call_id)}）："
           + (key_fault(outcome, call_id) or "run_agent 执行工具要走 execute_with_ledger"))
    records, error = records_in(outcome.files_after.get(outcome.scenario.meta["ledger"]))
    missing = [kind for kind in ("intent", "outcome") if error is not None or not of(records, call_id, kind)]
    expect(missing != ["intent"], "检查点旁边的台账 ledger_path(path) 里有这次 send_email 的 outcome，却没有它的 intent："
                                  + ("你的 append_ledger 追加时把台账里原有的记录盖掉了（台账只追加：\"a\" 模式或 O_APPEND，"
                                     "见 append_ledger 那一项的反馈）" if not keeps_earlier_records(grading) else
                                     "execute_with_ledger 执行之前要先追加 intent 并落盘，台账文件还不存在时也一样（追加会新建它）"))
    expect(not missing, f"检查点旁边的台账 ledger_path(path) 里没有这次 send_email 的 {' 和 '.join(missing)}："
                        "run_agent 执行工具要走 execute_with_ledger(call, ledger_path(path))")
    sent = next(c for c in outcome.tool_calls if c["name"] == "send_email")
    pending = saved_state(sent).get("pendingToolUse")
    expect(isinstance(pending, dict) and pending.get("id") == call_id,
           f"send_email 执行的那一刻，磁盘上的检查点还没有记下这次调用（pendingToolUse 是 {short(pending)}）："
           "存档点 A 要在执行之前。不然在这时崩溃，检查点里就没有这次调用，续跑时模型会重新提出一个新 id 的调用，"
           "键变了，信就发了两次")
    message = outcome_after_save_b(outcome, call_id)
    expect(message is None, message)
    for runs in (outcome, grading.outcome("agent_effects")):
        message = save_points_problem(runs)
        expect(message is None, message)
    message = effects_problem(grading, grading.outcome("agent_effects"), 0)
    expect(message is None, message)
    for runs in (outcome, grading.outcome("agent_effects")):
        message = client_problem(runs)
        expect(message is None, message)
    stopped = grading.outcome("agent_cannot_go_on")
    message = (unreadable_problem(stopped, 0, stopped.scenario.meta["damaged"]) or full_disk_problem(stopped, 1)
               or damaged_ledger_problem(stopped, 2))
    expect(message is None, message)


def damaged_ledger_problem(outcome, index: int) -> str | None:
    """Why run_agent (step `index`), resuming with send_email pending beside a ledger damaged in the middle (its
    intent after a line that is no record: read_ledger raises ValueError), did not let the error through with nothing
    sent, no model call and the ledger as it was; None if it did."""
    damaged = outcome.scenario.meta["damaged_ledger"]
    pending = damaged["checkpoint"]["pendingToolUse"]
    ran = [c["name"] for c in outcome.tool_calls if c["step"] == index] or (
        ["send_email"] if emails_in_step(outcome, index) else [])
    called = any(call.get("step") == index for call in outcome.model_calls)
    kept = outcome.files_after.get(damaged["file"]) == damaged["text"]
    if outcome.steps[index]["status"] == StepStatus.RAISED and not ran and not called and kept:
        return None
    did = (f"执行了 {short(ran)}" if ran else "调用了模型" if called else "改动、挪走或删掉了台账" if not kept
           else "没有让这个错误抛出去")
    return (f"从检查点续跑：悬空的是 send_email（id {pending['id']}），检查点旁边的台账中间有一行不是完整的记录（文件坏了，"
            f"这次调用的 intent 在它后面），reconcile 读它时 read_ledger 抛出 ValueError；你的 run_agent {did}。"
            "坏了的台账不等于没有记录：把它挪开、换一本新台账，或者跳过读不出来的行，intent 就不见了，做过的调用会再做一次。"
            "要让 ValueError 抛出去，台账原样留着等人来看")


def client_problem(outcome) -> str | None:
    """What is wrong if a run called the model through another client than its own: the one passed in to it, or one
    from make_client() when it was given none (client=None, or no client argument, as the signature allows); one
    kept from an earlier run in the same process is neither."""
    for call in outcome.model_calls:
        given = outcome.scenario.steps[call["step"]]["kwargs"].get("client") is not None
        route = call.get("client")
        if route == ("given" if given else "make_client"):
            continue
        if given:
            return ("run_agent 调用模型用的不是这一次传进来的 client，而是"
                    + ("同一个进程里之前某次运行传进来的那个" if route == "earlier" else "自己用 make_client() 另造的")
                    + "：调用方传进 client（notebook 里崩溃用的替身、重启时的计数客户端），就要用它；只有 client 是 None 时才 "
                      "make_client()，也不要把 client 存在全局变量里留给以后")
        return ("有一次运行没有传 client（client=None，或者干脆不传，签名允许这样调用），你的 run_agent 却用同一个进程里"
                "之前某次运行传进来的 client 调用了模型：这时要 make_client() 另造一个，不要把 client 存在全局变量里留给以后")
    return None


def outcome_after_save_b(outcome, call_id: str) -> str | None:
    """What is wrong if run_agent (step 0) wrote the call's outcome into the ledger only after save point B (its first
    save whose messages answer the call): a power cut between them can leave half the outcome at the ledger's end,
    which nothing cuts off (nothing is pending, so nothing reconciles) before the next intent is glued onto it."""
    saves = [c["at"] for c in outcome.standin_calls if c.get("step") == 0 and c.get("name") == "save_checkpoint"
             and isinstance(c.get("state"), dict) and call_id in results_in(c["state"])]
    written = outcome_written_at(outcome, 0, outcome.scenario.meta["ledger"], call_id)
    if not saves or written is None or written <= saves[0]:
        return None
    return ("send_email 的 outcome 是在存档点 B 之后才追加进台账的。课文的次序是：存档点 A → intent → 执行 → outcome → "
            "存档点 B。outcome 写在 B 之后，两者之间断电，台账末尾可能留下写了一半的 outcome：检查点里已经没有悬空调用，"
            "续跑不对账，没人截掉这半行，下一条 intent 接在它后面，台账从此读不出来。执行工具走 execute_with_ledger，"
            "它返回（outcome 已落盘）之后再存存档点 B")


@pytest.mark.grade(GRADE, 1)
def test_every_crash_of_the_send(grading):
    """send_email 执行前、送达后各被 SIGKILL 一次、送达后被中断（KeyboardInterrupt）一次再续跑：每次都只送达一封，结果都是确定的（没有 is_error），turns 接着数；等模型回复时被中断，检查点停在上一个存档点；从没有悬空调用的检查点、从悬空调用已有 outcome 的检查点续跑，也和参考答案一样（不对账、不重做），turns 已经用满的不再调用模型；悬空的是只读工具时对账、补上它的 tool_result；检查点旁边还没有台账时照常经台账发出一封"""
    for name, moment in (("agent_crash_before_send", "send_email 到达服务器之前（意图已记、信还没发）"),
                         ("agent_crash_after_send", "send_email 送达之后、记下结果之前"),
                         ("agent_interrupt_after_send", "send_email 送达之后、返回之前")):
        outcome = grading.outcome(name)
        stopped = "被中断（KeyboardInterrupt：notebook 里按下「中断」）" if name == "agent_interrupt_after_send" else "被杀掉"
        reached = any(c["step"] == 0 and c["name"] == "send_email" for c in outcome.tool_calls)
        if not reached or (name != "agent_interrupt_after_send"
                           and outcome.steps[0]["status"] != StepStatus.CRASHED_BY_GRADER):
            fail(f"发信任务没有走到 send_email：" + (problem(outcome, 0, "run_agent")
                                                 or "run_agent 没有通过 execute_tool 执行 send_email"))
        expect(not unanswered_save(outcome),
               f"在 {moment}{stopped}再续跑：你的 run_agent 存下了一份检查点，最后一条 assistant 消息要了工具，pendingToolUse "
               "却是 None：此刻崩溃，下次续跑没有悬空调用可对账，发给模型的对话里这个 tool_use 缺了它的 tool_result"
               "（API 回 400）。pendingToolUse 要留到 reconcile 补上结果之后，再和结果一起存档")
        state = final(outcome, 1)
        call_id = send_id(outcome)
        expect(outcome.delivered_ids == [keyed(call_id)],
               f"在 {moment}{stopped}再续跑，邮件服务器{received(outcome, call_id)}，应该正好 1 封、带这次调用的键："
               + (key_fault(outcome, call_id) or "续跑时要 reconcile(state, ledger_path(path))，按台账和幂等键决定"))
        messages = state.get("messages") if isinstance(state.get("messages"), list) else []
        unknown = unknown_results(messages)
        expect(not unknown, f"在 {moment}{stopped}再续跑，对话里有 {unknown} 个 is_error 结果：服务器答得上来，结果就是确定的")
        # what the server said of this call: asked by its key, or the send made again under it, or the send itself:
        # an interrupt that came late, on a loaded machine (the step handled SIGINT only after the grader had replied),
        # lets the send return and its outcome be recorded, which the resume then reuses (the step never saw the output
        # otherwise: it can carry it only so)
        answers = [c["answer"] for c in outcome.lookups if c["key"] == call_id and c["answer"] is not None]
        answers += [c["output"] for c in outcome.tool_calls if c["name"] == "send_email" and c.get("key") == call_id
                    and c["output"] is not None and c["step"] in (0, 1)]
        block = result_for(messages, call_id)
        expect(block is not None and any(carries_output(block.get("content"), answer) for answer in answers),
               # its text is not quoted: the model's ids and the server's times in it differ between two runs of a seed
               f"在 {moment}{stopped}再续跑，这次 send_email 的 tool_result 不是服务器对这把键的回答："
               "信送到没有要按台账和幂等键去问（只有 intent 时 lookup_effect(name, id)），"
               "不能自己写一个结果。" + ("执行被打断（KeyboardInterrupt）时工具没有返回，台账里就只该有 intent：不要在 "
                                   "finally 或 except BaseException 里记一条「错误」outcome、也不要替它补一个「已中断」的结果"
                                   if name == "agent_interrupt_after_send" else ""))
        trouble = pairing_problem(messages)
        expect(trouble is None, f"续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")
        asked = [c for c in outcome.model_calls if c["step"] == 1][:1]
        saved = saved_state(asked[0]) if asked else {}
        if asked and call_id in results_in(saved) and saved.get("pendingToolUse", "缺少") is not None:
            fail(f"在 {moment}{stopped}再续跑：对账之后存下的检查点里，这次调用已经有了 tool_result，pendingToolUse 却还是 "
                 f"{short(saved.get('pendingToolUse', '缺少'))}：此刻崩溃，续跑时又对一次账，同一个 tool_use 得到第二个结果。"
                 "reconcile 补上结果之后要把 pendingToolUse 设为 None")
        expect(not asked or (saved.get("pendingToolUse", "缺少") is None and call_id in results_in(saved)),
               f"在 {moment}{stopped}再续跑：对账之后、再调用模型之前，磁盘上的检查点还是对账之前的样子"
               "（还挂着悬空调用，或者没有它的 tool_result）：reconcile 之后要照旧存一次档")
        check_counters(outcome, state, 0, f"在 {moment}{stopped}再续跑")
    message = interrupted_model_problem(grading.outcome("agent_interrupt_model"))
    expect(message is None, message)
    resume_nothing_pending(grading)
    resume_turns_used_up(grading)
    resume_recorded(grading)
    resume_read_only(grading)
    resume_turns_used_up_pending(grading)
    resume_no_ledger(grading)
    resume_killed_mid_append(grading)
    resume_with_effects(grading)


def resume_nothing_pending(grading):
    """The crash came after save point B: nothing is pending, so there is nothing to reconcile."""
    outcome = grading.outcome("agent_resume_nothing_pending")
    checkpoint = outcome.scenario.meta["checkpoint"]
    where = "从存档点 B 的检查点续跑（pendingToolUse 是 None：崩溃发生在调用模型的时候）"
    message = problem(outcome, 0, "run_agent")
    expect(message is None, f"{where}：{message}。只有 pendingToolUse 不是 None 时才 reconcile：没有悬空调用，就没有要对的账")
    state = final(outcome, 0, "run_agent")
    expect(same(first_request(outcome, 0), checkpoint["messages"]),
           f"{where}，第一次调用模型发出的 messages 应该和检查点里的完全一样：没有悬空调用，不用补任何结果")
    check_counters(outcome, state, checkpoint["turns"], where)


def resume_turns_used_up(grading):
    """A checkpoint at save point B whose turns reached MAX_TURNS: the run returns it without calling the model."""
    outcome = grading.outcome("agent_turns_used_up")
    where = f"从 turns 已经用满（{outcome.scenario.meta['checkpoint']['turns']}，等于 MAX_TURNS）、没有悬空调用的检查点续跑"
    message = problem(outcome, 0, "run_agent")
    expect(message is None, f"{where}：{message}")
    calls = [c for c in outcome.model_calls if c["step"] == 0]
    expect(not calls, f"{where}，你的 run_agent 又调用了 {len(calls)} 次模型：MAX_TURNS 限的是整个任务的轮数，"
                      "turns 达到 MAX_TURNS 就不再调用模型（循环条件是 turns < MAX_TURNS）")


def resume_turns_used_up_pending(grading):
    """Save point A of the last turn: turns reached MAX_TURNS with a call pending. The run reconciles it and saves,
    then returns without calling the model."""
    outcome = grading.outcome("agent_turns_used_up_pending")
    meta = outcome.scenario.meta
    pending = meta["checkpoint"]["pendingToolUse"]
    where = (f"从 turns 已经用满（{meta['checkpoint']['turns']}，等于 MAX_TURNS）、还挂着悬空调用 {pending['name']}"
             f"（id {pending['id']}）的检查点续跑")
    message = problem(outcome, 0, "run_agent")
    expect(message is None, f"{where}：{message}")
    calls = [c for c in outcome.model_calls if c["step"] == 0]
    expect(not calls, f"{where}，你的 run_agent 又调用了 {len(calls)} 次模型：turns 达到 MAX_TURNS 就不再调用模型")
    state = returned(outcome, 0, "run_agent")
    saved, _ = on_disk(outcome, meta["file"])
    for what, checkpoint in (("run_agent 返回的检查点", state), ("path 上最后存下的检查点", saved)):
        messages = checkpoint.get("messages") if isinstance(checkpoint, dict) else None
        done = (isinstance(messages, list) and checkpoint.get("pendingToolUse", "缺少") is None
                and result_for(messages, pending["id"]) is not None)
        expect(done, f"{where}，{what}里这次调用还缺着它的 tool_result（或者 pendingToolUse 不是 None）："
                     "续跑时先 reconcile(state, ledger_path(path)) 再存档，放在循环之前——turns 用满、循环一次也不跑，"
                     "也要对账、存档，否则对话末尾的 tool_use 永远没有结果")


def resume_recorded(grading):
    """A tool no service can be asked about by key is pending, its outcome already beside the checkpoint."""
    outcome = grading.outcome("agent_resume_recorded")
    meta = outcome.scenario.meta
    checkpoint, records = meta["checkpoint"], meta["records"]
    pending = checkpoint["pendingToolUse"]
    where = (f"从检查点续跑：悬空的是 {pending['name']}（id {pending['id']}），检查点旁边的台账 ledger_path(path) 里"
             "已经有它的 intent 和 outcome，末尾还有一条被崩溃打断、只写了一半的记录（read_ledger 会截掉它；自己逐行 "
             "json.loads 台账的代码在这里出错）")
    message = problem(outcome, 0, "run_agent")
    expect(message is None, f"{where}：{message}")
    state = final(outcome, 0, "run_agent")
    if expected_action(grading.reference, checkpoint, records, {"answers": {}, "down": False}) != "reuse":
        return
    again = [c for c in outcome.tool_calls if c["name"] == pending["name"]]
    expect(not again, f"{where}，你的 run_agent 却又执行了 {len(again)} 次：{pending['name']} 的服务认不出幂等键，"
                      "重做就是做两遍。续跑时要先 reconcile(state, ledger_path(path))，按这本台账复用记下的 outcome")
    recorded = of(records, pending["id"], "outcome")[-1]["output"]
    block = result_for(first_request(outcome, 0), pending["id"])
    expect(block is not None and carries_output(block.get("content"), recorded)
           and error_flag_right(block.get("is_error", MISSING), recorded),
           f"{where}，续跑后第一次调用模型时，这次调用的 tool_result 要带着台账 outcome 里记的 output"
           f"（{short(recorded, 40)}，整段，前后加几句话可以），不标 is_error，你的是 {short(block)}")
    check_counters(outcome, state, checkpoint["turns"], "从悬空调用已有 outcome 的检查点续跑")


def resume_read_only(grading):
    """A read-only call is pending: reconcile runs it again, and its tool_result is in the next request."""
    outcome = grading.outcome("agent_resume_read_only")
    checkpoint = outcome.scenario.meta["checkpoint"]
    pending = checkpoint["pendingToolUse"]
    where = f"从检查点续跑：悬空的是只读工具 {pending['name']}（id {pending['id']}）"
    asked = first_request(outcome, 0)
    expect(asked is None or result_for(asked, pending["id"]) is not None,
           f"{where}，续跑后第一次调用模型时，对话里还没有这次调用的 tool_result：悬空的只读调用也要先 "
           "reconcile(state, ledger_path(path))（再执行一次，补上配对的 tool_result），不能只把 pendingToolUse 清成 None："
           "对话末尾的 tool_use 没有配对，API 会返回 400")
    message = problem(outcome, 0, "run_agent")
    expect(message is None, f"{where}：{message}")
    state = final(outcome, 0, "run_agent")
    trouble = pairing_problem(state.get("messages") if isinstance(state.get("messages"), list) else [])
    expect(trouble is None, f"{where}，续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")
    check_counters(outcome, state, checkpoint["turns"], where)


def resume_no_ledger(grading):
    """Save point A with send_email pending, and no ledger file yet: nothing recorded means never started."""
    outcome = grading.outcome("agent_resume_no_ledger")
    checkpoint = outcome.scenario.meta["checkpoint"]
    call_id = checkpoint["pendingToolUse"]["id"]
    where = (f"从检查点续跑：悬空的是 send_email（id {call_id}），检查点旁边还没有台账文件"
             "（存档点 A 写好之后、intent 写下之前就崩溃了）")
    state = final(outcome, 0, "run_agent")
    messages = state.get("messages") if isinstance(state.get("messages"), list) else []
    unknown = unknown_results(messages)
    expect(outcome.delivered_ids == [keyed(call_id)] and not unknown,
           f"{where}，邮件服务器{received(outcome, call_id)}，对话里有 {unknown} 个 is_error 结果；应该正好 1 封、"
           "带这次调用的键，结果是确定的：台账里没有记录（连文件都还没有）说明这次调用从没开始，"
           "照样 reconcile(state, ledger_path(path))，经台账执行一次，不能退回第 3 课的对账补 is_error")
    trouble = pairing_problem(messages)
    expect(trouble is None, f"{where}，续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")
    check_counters(outcome, state, checkpoint["turns"], where)


def killed_mid_append(outcome, rng) -> tuple | None:
    """(the files, what happened last) as a kill leaves them inside the append of the send's intent (every write
    made so far is there: a process kill loses nothing the kernel has), at a point drawn between its first and its
    last file-system call; None if the run wrote nothing between asking the model and sending."""
    sent = next((c for c in outcome.tool_calls if c["name"] == "send_email"), None)
    asked = [c["at"] for c in outcome.model_calls if sent and c["at"] <= sent["at"]]
    if not asked:
        return None
    inside = [n for n, e in enumerate(outcome.fs_events) if asked[-1] < e["at"] <= sent["at"]]
    if len(inside) < 2:
        return None
    last = inside[rng.randrange(len(inside) - 1)]  # after the first of its calls at the earliest, before its last
    files = killed_files(outcome, [last])[0]
    # the checkpoint is the grader's to save here (save point A, written before the intent)
    files[outcome.scenario.watch] = json.dumps(saved_state(sent), ensure_ascii=False)
    return files, describe(outcome.fs_events[last], outcome.workdir)


def resume_killed_mid_append(grading):
    """Killed inside the append of the send's intent (an append, too, can be cut short), then resumed from the files
    as the kill left them: the email goes out once, with the call's key, and the task finishes."""
    outcome = grading.outcome("agent_email")
    call_id = send_id(outcome)
    killed = killed_mid_append(outcome, random.Random(grading.seed))
    if killed is None or call_id is None:
        return  # test_sends_through_the_ledger says what is wrong
    files, last = killed
    scenario = outcome.scenario
    resumed = grading.outcome("agent_killed_mid_append", Scenario(
        "agent_killed_mid_append", steps=scenario.steps, files=files, watch=scenario.watch,
        standins=scenario.standins, read_after=scenario.read_after, meta=scenario.meta))
    where = (f"进程在追加 send_email 的 intent 的途中（「{last}」之后）被杀掉，再从检查点续跑（台账和你建的其它文件都是"
             "被杀那一刻的样子）")
    message = problem(resumed, 0, "run_agent")
    expect(message is None, f"{where}：{message}。一次追加也可能被崩溃打断：它能留下的只是台账末尾的半行（读的时候丢掉）；"
                            "追加时自己建的锁文件这类东西，进程被杀就没人删了，续跑的每一次追加都会被它挡住"
                            "（fcntl.flock 这样的锁由内核在进程结束时释放）")
    state = final(resumed, 0, "run_agent")
    unknown = unknown_results(state.get("messages") if isinstance(state.get("messages"), list) else [])
    expect(resumed.delivered_ids == [keyed(call_id)] and not unknown,
           f"{where}，邮件服务器{received(resumed, call_id)}，对话里有 {unknown} 个 is_error 结果；应该正好 1 封、"
           "带这次调用的键，结果是确定的")


def resume_with_effects(grading):
    """Resumed with an idempotent write pending, then with a tool no list names pending (only its intent recorded):
    the effects at the services and the ledger as the reference's run leaves them."""
    outcome = grading.outcome("agent_effects")
    for index in range(1, len(outcome.scenario.steps)):
        message = effects_problem(grading, outcome, index)
        expect(message is None, message)
