"""The scripted model, driven through the real anthropic SDK."""
import itertools
import json
import re
from pathlib import Path

import anthropic
import httpx2
import pytest
from anthropic.types import Message, TextBlock, ToolUseBlock

from course import assistant_message, execute_tool, make_client, request_params
from course.checks import unknown_wording_problem
from course.model import (ENDING_SHAPES, MODEL, TOOL_CALL_SHAPES, answer_request, answering_model, asks_to_redo,
                          merge_consecutive_turns, reads_as_unknown, says_unknown, scripted_client, skips_looking)


def ask(client, messages):
    return client.messages.create(messages=messages, **request_params())


def tool_result(tool_use, content, **extra):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": content, **extra}]}


def run_task(client, task, limit=20):
    """Drive the model with the course's tools until it answers in text; return messages."""
    messages = [{"role": "user", "content": task}]
    for _ in range(limit):
        response = ask(client, messages)
        messages.append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        if tool_use is None:
            return messages
        messages.append(tool_result(tool_use, execute_tool(tool_use.name, tool_use.input)))
    raise AssertionError("the scripted model never finished")


def test_offline_without_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    client = make_client()
    assert ask(client, [{"role": "user", "content": "帮我整理这周的会议纪要"}]).model == answering_model(MODEL)


def test_offline_forced_even_with_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-used")
    monkeypatch.setenv("COURSE_OFFLINE", "1")
    response = ask(make_client(), [{"role": "user", "content": "帮我整理这周的会议纪要"}])
    assert response.id.startswith("msg_01")


def test_key_selects_real_api(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.delenv("COURSE_OFFLINE", raising=False)
    client = make_client()
    assert str(client.base_url).startswith("https://api.anthropic.com")
    assert client.api_key == "sk-ant-test"


def test_responses_are_real_sdk_types(client):
    response = ask(client, [{"role": "user", "content": "帮我整理这周的会议纪要"}])
    assert isinstance(response, Message)
    assert response.stop_reason == "tool_use"
    assert isinstance(response.content[0], TextBlock)
    tool_uses = [b for b in response.content if isinstance(b, ToolUseBlock)]
    assert len(tool_uses) == 1 and tool_uses[0].id.startswith("toolu_01") and len(tool_uses[0].id) == 30
    assert tool_uses[0].name == "list_dir"
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0


def test_meeting_notes_task_reads_every_note_then_summarises(client):
    messages = run_task(client, "帮我整理这周的会议纪要")
    reads = [b["input"]["path"] for m in messages if m["role"] == "assistant"
             for b in m["content"] if b["type"] == "tool_use" and b["name"] == "read_file"]
    assert sorted(reads) == [f"./notes/meeting-08-{d}.md" for d in (25, 26, 27, 28, 29)]
    final = messages[-1]["content"][0]["text"]
    assert "5 次会议" in final and "效果台账" in final


def test_email_task_sends_exactly_once(client, mail):
    messages = run_task(client, "帮我把结论发邮件通知团队")
    assert mail.count() == 1
    assert mail.received()[0]["Subject"] == "本周结论"
    assert "已把本周结论发给" in messages[-1]["content"][0]["text"]


def test_same_conversation_same_step_new_ids(client):
    """As from the API: nothing the conversation holds predicts an id, so no answer can tell the notebook's model
    from the grader's by them (tests/grading variants tamper_detect_stable_ids)."""
    first = ask(client, [{"role": "user", "content": "帮我整理这周的会议纪要"}])
    second = ask(client, [{"role": "user", "content": "帮我整理这周的会议纪要"}])
    assert first.content[1].model_dump(exclude={"id"}) == second.content[1].model_dump(exclude={"id"})
    assert first.content[1].id != second.content[1].id and first.id != second.id
    assert all(re.fullmatch(prefix + "[A-Za-z0-9]{22}", found)
               for prefix, found in (("toolu_01", first.content[1].id), ("msg_01", first.id)))


def _messages_until_send(client):
    """The email task up to the assistant message that asks for send_email."""
    messages = [{"role": "user", "content": "帮我把结论发邮件通知团队"}]
    while True:
        response = ask(client, messages)
        messages.append(assistant_message(response))
        tool_use = next(b for b in response.content if b.type == "tool_use")
        if tool_use.name == "send_email":
            return messages, tool_use
        messages.append(tool_result(tool_use, execute_tool(tool_use.name, tool_use.input)))


def test_unpaired_tool_use_gets_the_apis_400(client):
    messages, _ = _messages_until_send(client)
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(client, messages)
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert "`tool_use` ids were found without `tool_result` blocks immediately after" in str(caught.value)


def test_deleting_the_tool_use_but_keeping_a_result_gets_400(client):
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, "ok"))
    del messages[-2]
    with pytest.raises(anthropic.BadRequestError, match="unexpected `tool_use_id`"):
        ask(client, messages)


def test_a_result_whose_content_is_null_is_read_as_no_content(client, mail):
    """Probe 17b: content null passed the field check, then the model's own reading of the history raised, and the
    student saw APIConnectionError (an execute_with_ledger that forgot `return output`)."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, None))
    reply = ask(client, messages)
    assert reply.stop_reason in ("end_turn", "tool_use")


def test_is_error_must_be_a_boolean(client):
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, "unknown", is_error="true"))
    with pytest.raises(anthropic.BadRequestError, match="valid boolean"):
        ask(client, messages)


@pytest.mark.parametrize("already_sent", [True, False])
def test_is_error_on_send_email_reassesses_and_sends_at_most_once(client, mail, already_sent):
    messages, tool_use = _messages_until_send(client)
    if already_sent:  # the crash came after delivery
        execute_tool(tool_use.name, tool_use.input)
    messages.append(tool_result(tool_use, "执行状态未知，请重新评估", is_error=True))
    response = ask(client, messages)
    check = next(b for b in response.content if b.type == "tool_use")
    assert check.name == "list_sent_emails"  # a read-only look before any resend
    messages.append(assistant_message(response))
    messages.append(tool_result(check, execute_tool(check.name, check.input)))
    for _ in range(3):
        response = ask(client, messages)
        messages.append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        if tool_use is None:
            break
        messages.append(tool_result(tool_use, execute_tool(tool_use.name, tool_use.input)))
    assert response.stop_reason == "end_turn"
    assert mail.count() == 1
    assert ("不再重发" in response.content[0].text) == already_sent


@pytest.mark.parametrize("flagged", [True, False])
def test_send_failure_is_reported_not_retried(client, flagged):
    """A tool's own failure, flagged is_error (as run_agent does) or not, is a known result: reported, not checked."""
    messages, tool_use = _messages_until_send(client)
    output = execute_tool(tool_use.name, tool_use.input)  # no server running
    messages.append(tool_result(tool_use, output, **({"is_error": True} if flagged else {})))
    response = ask(client, messages)
    assert response.stop_reason == "end_turn" and "没有发出去" in response.content[0].text


@pytest.mark.parametrize("check_result", [
    {"content": "错误：邮件服务器没有运行：请在 `with MailServer():` 里运行 agent", "is_error": True},
    {"content": "错误：邮件服务器没有运行：请在 `with MailServer():` 里运行 agent"},
    {"content": "list_sent_emails 的执行结果未知：进程在记下结果之前崩溃了。", "is_error": True},
])
def test_a_check_that_could_not_be_made_leaves_the_outcome_unknown(client, check_result):
    """After an unknown send, a failed look at the sent mail proves nothing: the model stops and never re-sends."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, "send_email 的执行结果未知，请先确认现状", is_error=True))
    response = ask(client, messages)
    check = next(b for b in response.content if b.type == "tool_use")
    assert check.name == "list_sent_emails"
    messages.append(assistant_message(response))
    messages.append(tool_result(check, **check_result))
    response = ask(client, messages)
    assert response.stop_reason == "end_turn"
    assert not [b for b in response.content if b.type == "tool_use"]
    assert "不重发" in response.content[0].text and "不知道" in response.content[0].text


# --- how the model reads an is_error result: the outcome unknown, or an order to do the call again ----------

UNKNOWN_SAID = ("{tool} 的执行结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。", "进程崩溃了，{tool} 的结果不确定。",
                "不知道 {tool} 有没有执行成功。", "The outcome of {tool} is unknown: the process died before recording it.",
                "错误：无法确定 {tool} 是否已经生效——进程在记下结果之前崩溃了。", "错误：进程崩溃了，无法得知 {tool} 有没有执行。",
                "{tool} 是否生效无法判断。", "{tool} 的结果不明：进程在记下结果之前崩溃了。", "未能确认 {tool} 是否已经执行。",
                "{tool} 有没有生效不得而知。")
REDO_AT_ONCE = ("请重新调用 {tool}，再执行一次。", "请再执行一次。", "直接重试即可。", "为保险起见，请重新发送。", "请再发一封。",
                "需要重新执行 {tool}。", "请重新运行这个工具，然后确认是否成功。", "Please call {tool} again.", "Retry the call.",
                "Run it again to be sure, then check the result.", "重发前不用确认，直接重新发送。", "无需核实，请重新发送。",
                "请再发前面那封邮件。", "稍后重试即可。",
                # probe 23: words of redoing the asks_to_redo did not know
                "请把这封邮件补发一次。", "请再次调用 {tool}。", "请再一次执行 {tool}。", "请直接调用 {tool}，用同样的参数把这一步做完。",
                "请重复调用 {tool} 一次。", "Please issue the same {tool} call once more.", "Make the call one more time.",
                "为确保对方收到，请用同样的参数调用一次 {tool}。", "请把同样的邮件发给原来的收件人。",
                "Send the same email to the same recipients now.")
# "before doing it again, look" is looking first, whether it says 先 or not
LOOK_FIRST = ("请先确认现状，再决定下一步。", "请先用 list_sent_emails 查一下是否已经发出，没有发出再重新发送。",
              "如果确认没有生效，可以重新调用 {tool}。", "不要直接重发，请先核实。", "重新执行可能导致重复，请先确认现状。",
              "请核实之后再决定要不要重试。", "上一次重发没有成功，信可能已经发出，请先确认。", "请先确认现状，再决定是否重新调用。",
              "Check first whether it took effect before you call {tool} again.", "Do not retry blindly; verify first.", "",
              "重新执行之前，请确认现状。", "在重发之前请用 list_sent_emails 确认。", "重试前请确认现状。", "重新发送前务必核实。",
              "重发前请先查一查已发送列表。", "重新调用 {tool} 以前，先看一下已发送列表。",
              "需要重发时请确认现状。", "是否重新执行由你决定，请确认现状后再决定。", "若要重试，请确认现状。",  # probe 16b
              "重新执行与否，请确认现状后再决定。", "能否重新执行，请确认现状后再决定。",
              "请再次调用 list_sent_emails 确认是否已经发出。", "请直接调用 list_sent_emails 查看，再决定要不要发。",  # probe 23
              "不要当作已经完成，也不要补发，先确认。", "Don't assume it was sent; check first.")
SAID_TOOLS = ("send_email", "delete_branch")


@pytest.mark.parametrize("said, then, tool", list(itertools.product(UNKNOWN_SAID, LOOK_FIRST, SAID_TOOLS)))
def test_an_unknown_outcome_with_a_look_first_reads_as_unknown(said, then, tool):
    """Saying the outcome is unknown, then to look before anything (a resend only after it), is what reconcile says."""
    text = (said + then).format(tool=tool)
    assert reads_as_unknown(text, True) and asks_to_redo(text) is None


@pytest.mark.parametrize("said, then, tool", list(itertools.product(UNKNOWN_SAID, REDO_AT_ONCE, SAID_TOOLS)))
def test_an_order_to_do_the_call_again_without_looking_does_not_read_as_unknown(said, then, tool):
    """"Unknown, call it again": the model does what the result says, and a second email goes out."""
    text = (said + then).format(tool=tool)
    assert not reads_as_unknown(text, True)
    assert asks_to_redo(text) in text


# Telling the model not to look, or to take the call as done, beside "unknown" (probe 23): a real model goes on, and an
# email that never went out is missing.
SKIP_LOOKING = ("不必核实，当作已经完成，直接继续下一步即可。", "无需确认，就当已经发出。", "不用检查，视为成功。",
                "No need to check, assume it was sent and go on.", "Treat the call as done.")


@pytest.mark.parametrize("said, then", list(itertools.product(UNKNOWN_SAID, SKIP_LOOKING)))
def test_telling_the_model_not_to_look_is_named(said, then):
    text = (said + then).format(tool="send_email")
    assert skips_looking(text) in text
    assert unknown_wording_problem(text) is not None


@pytest.mark.parametrize("said, then, tool", list(itertools.product(UNKNOWN_SAID[:4], LOOK_FIRST, SAID_TOOLS)))
def test_looking_first_is_not_skipping_the_look(said, then, tool):
    assert skips_looking((said + then).format(tool=tool)) is None


# Saying what reconcile did not do (a negation right before the verb), that the call must not be made again or what
# making it again risks (probe 16b: each read as an order to redo, the course's model sent a second email); then to look, without 先.
# "要不重发", "不得不重发" and the like still ask for it.
NOT_REDONE = ("{tool} 未重新执行：", "对账没有重新执行 {tool}，", "本次恢复不重新执行 {tool}。", "{tool} 没有被重新执行，",
              "没有重发这封信；", "对账不自动重试。", "已跳过，不再执行。", "为防止重复，未做重试；", "{tool} 并未重新发送。",
              "{tool} wasn't rerun. ", "Reconcile didn't redo {tool}. ", "The call hasn't been sent again. ",
              "并不需要重新执行 {tool}，", "不该直接重发；", "无须重新发送。", "没必要重新执行，", "禁止重发。",
              "重新执行有风险，", "直接重发是危险的；", "重新执行 {tool} 有可能导致重复发送。")
STILL_REDO = ("要不重新发送一次。", "不得不重发。", "何不重发？", "没有发出的话请重新发送。", "请重新发送，不会重复。", "请重发两次。",
              "请重新发送一次看看会不会成功。")


@pytest.mark.parametrize("done, said, tool", list(itertools.product(NOT_REDONE, UNKNOWN_SAID[:3], SAID_TOOLS)))
def test_saying_the_call_was_not_run_again_is_no_order(done, said, tool):
    text = (done + said + "请确认现状后再决定下一步。").format(tool=tool)
    assert reads_as_unknown(text, True) and asks_to_redo(text) is None


@pytest.mark.parametrize("then", STILL_REDO)
def test_a_negation_that_asks_for_it_is_still_an_order(then):
    assert asks_to_redo(UNKNOWN_SAID[0].format(tool="send_email") + then) in then


# A definite claim that the call failed or did not take effect, however it is put, with no word of doubt: the model
# takes the call as not done (and may send a second email). Found by probing: without 「错误」 these read as unknown.
FAILURE_CLAIMED = ("{tool} 执行失败：进程崩溃，这次调用没有生效。", "错误：{tool} 执行失败，这次调用没有生效。", "{tool} 没有生效。",
                   "邮件未发出：进程崩溃了。", "进程崩溃了，{tool} 没有执行。", "{tool} 调用失败。", "{tool} 未能执行成功。",
                   "{tool} 没能发出。", "进程崩溃，{tool} 并未生效。", "{tool} 尚未执行。", "{tool} 未被执行。",
                   "{tool} 执行失败，原因不明。", "{tool} 失败了，不知道为什么。", "未知错误：{tool} 没有生效。",
                   "{tool} 执行失败，原因不详。", "{tool} 执行失败，原因无从得知。", "{tool} 执行失败，无法确定原因。",
                   "{tool} 执行失败，你可能需要重试。", "{tool} 执行失败，请检查邮件服务器后重试。",
                   "Error: {tool} failed. The process crashed and the call did not take effect.",
                   "The email was not sent: the process crashed.", "{tool} did not run.", "{tool} wasn't executed.",
                   "{tool} has not been executed.", "The call failed because the process crashed.",
                   "{tool} failed for an unknown reason.", "Error: {tool} failed. You may want to retry.",
                   "The email never went out.", "{tool} had no effect.", "The call didn't go through.",
                   "The message wasn't delivered.", "Error: the process crashed before {tool}'s result was recorded.")
# Words of failure with words of doubt, or asking to look first: what reconcile means, put another way.
FAILURE_IN_DOUBT = ("进程崩溃了，{tool} 可能没有生效，也可能已经生效。", "{tool} 可能失败了，也可能成功了，请先确认。",
                    "{tool} 执行失败还是成功，现在无从判断。", "{tool} 是成功还是失败无从得知。",  # probe 16b
                    "{tool} 执行失败与否尚无定论。",
                    "执行失败还是成功不得而知。", "进程崩溃了：{tool} 没有重新执行，请先确认邮件是否已经发出。",
                    "崩溃了，请确认 {tool} 有没有生效。", "{tool} 是否生效说不准，请先用 list_sent_emails 查看。",
                    "{tool} might have failed, or it might have gone through: nobody knows.",
                    "{tool} may or may not have been sent; the process crashed before its result was recorded.",
                    "It is not known whether {tool} did not run.", "Whether {tool} failed is undetermined.",
                    "The process crashed before recording {tool}: it may not have taken effect. Verify first.",
                    "Error: {tool} did not report back; check whether it was sent before anything else.",
                    "We cannot tell whether {tool} failed.")
# Saying neither: an is_error result that only says what happened still reads as unknown.
NEITHER = ("进程在记下结果之前崩溃了。", "The process crashed before the result was recorded.")


@pytest.mark.parametrize("said, tool", list(itertools.product(FAILURE_CLAIMED, SAID_TOOLS)))
def test_a_definite_failure_does_not_read_as_unknown(said, tool):
    assert not reads_as_unknown(said.format(tool=tool), True)


@pytest.mark.parametrize("said, tool",
                         list(itertools.product(FAILURE_IN_DOUBT + NEITHER + UNKNOWN_SAID, SAID_TOOLS)))
def test_words_of_failure_with_words_of_doubt_read_as_unknown(said, tool):
    assert reads_as_unknown(said.format(tool=tool), True)


def test_a_definite_failure_is_reported_not_looked_up(client):
    """"send_email 执行失败，没有生效" after a crash: the model takes it as not sent, does not look at the sent mail."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, "send_email 执行失败：进程崩溃，这次调用没有生效。", is_error=True))
    response = ask(client, messages)
    assert not [b for b in response.content if b.type == "tool_use" and b.name == "list_sent_emails"]


def test_an_order_to_send_again_is_not_looked_up_first(client):
    """The model reads "请重新发送" after an unknown send as no unknown outcome: it does not look at the sent mail."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, "send_email 的结果未知，请重新发送。", is_error=True))
    response = ask(client, messages)
    assert not [b for b in response.content if b.type == "tool_use" and b.name == "list_sent_emails"]


def test_a_note_that_cannot_be_read_is_skipped_not_asked_for_again(client):
    """A read that failed is a known result: the model goes on without it and says so."""
    messages = [{"role": "user", "content": "帮我整理这周的会议纪要"}]
    asked = []
    for _ in range(12):
        response = ask(client, messages)
        messages.append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        if tool_use is None:
            break
        asked.append((tool_use.name, tool_use.input))
        output = execute_tool(tool_use.name, tool_use.input)
        if tool_use.name == "list_dir":
            output += "\nmeeting-08-30.md"  # a note the workspace does not have
        messages.append(tool_result(tool_use, output, is_error=output.startswith("错误")))
    assert response.stop_reason == "end_turn"
    assert asked.count(("read_file", {"path": "./notes/meeting-08-30.md"})) == 1
    assert "./notes/meeting-08-30.md 读不出来" in response.content[0].text


# --- fidelity to the real API (tests/fixtures/messages_api_facts.json) ---------------------

FACTS = json.loads((Path(__file__).parent / "fixtures" / "messages_api_facts.json").read_text(encoding="utf-8"))


def post(body: dict) -> httpx2.Response:
    """One request through the offline model's HTTP side, as the SDK would send it."""
    return answer_request(httpx2.Request("POST", "https://api.anthropic.com/v1/messages", json=body))


def test_a_200_body_names_the_dated_model_with_the_apis_fields():
    requested = FACTS["dated_model"]["requested"]
    reply = post({**request_params(), "model": requested,
                  "messages": [{"role": "user", "content": "帮我整理这周的会议纪要"}]})
    assert reply.status_code == 200
    body = reply.json()
    assert body["model"] == FACTS["dated_model"]["answered"]
    assert sorted(body) == FACTS["ok_body_fields"]
    assert sorted(body["usage"]) == FACTS["usage_fields"]
    assert sorted(body["usage"]["cache_creation"]) == FACTS["cache_creation_fields"]
    assert body["usage"]["service_tier"] == "standard"
    sdk = ask(make_client(offline=True), [{"role": "user", "content": "帮我整理这周的会议纪要"}])
    assert sdk.usage.cache_read_input_tokens == 0 and sdk.usage.cache_creation.ephemeral_5m_input_tokens == 0


def test_a_model_without_a_dated_snapshot_answers_with_its_own_name():
    assert answering_model("claude-sonnet-5-5") == "claude-sonnet-5-5"
    assert answering_model("claude-sonnet-4-5") == "claude-sonnet-4-5-20250929"


def test_a_400_matches_the_apis_status_type_text_location_and_fields():
    case = FACTS["orphan_result"]
    reply = post({**request_params(), "messages": case["messages"]})
    assert reply.status_code == case["status"]
    for name, value in case["headers"].items():
        assert reply.headers[name] == value
    body = reply.json()
    assert sorted(body) == case["body_fields"] and body["type"] == case["body_type"]
    assert sorted(body["error"]) == case["error_fields"]
    assert body["error"]["type"] == case["error_type"]
    assert body["error"]["message"] == case["message"]  # location counted after merging the two user turns
    assert body["request_id"].startswith(case["request_id_prefix"])
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(make_client(offline=True), case["messages"])
    assert caught.value.body["error"]["message"] == case["message"]


def test_consecutive_turns_are_merged_before_counting():
    merged = merge_consecutive_turns([{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "text", "text": "b"}]},
                                      {"role": "assistant", "content": "c"}])
    assert [m["role"] for m in merged] == ["user", "assistant"]
    assert [b["text"] for b in merged[0]["content"]] == ["a", "b"]


@pytest.mark.parametrize("block, where", [
    ({"type": "tool_use", "name": "list_dir", "input": {"path": "."}}, "messages.1.content.0.tool_use.id: Field required"),
    ({"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": "."}, "tool_use.input: Input should be a valid"),
    ({"type": "text", "text": 5}, "messages.1.content.0.text.text: Input should be a valid string"),
    ("纯文本", "messages.1.content.0: Input should be a valid dictionary"),
    ({"type": "text", "text": ""}, "messages: text content blocks must be non-empty"),
])
def test_a_malformed_block_gets_the_api_s_400_not_a_dropped_connection(block, where):
    """A message the student built by hand without what the API requires is refused as the API refuses it."""
    messages = [{"role": "user", "content": "整理纪要"}, {"role": "assistant", "content": [block]},
                {"role": "user", "content": "继续"}]
    with pytest.raises(anthropic.BadRequestError, match=where):
        make_client(offline=True).messages.create(messages=messages, **request_params())


@pytest.mark.parametrize("content", [[{"type": "text", "text": ""}],
                                     [{"type": "text", "text": "重新执行的结果："}, {"type": "text", "text": ""}]])
def test_an_empty_text_block_in_a_tool_result_gets_the_apis_400(client, content):
    """An empty output wrapped as a text block is refused as the API refuses it (anthropic-sdk-go#377)."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, content))
    with pytest.raises(anthropic.BadRequestError, match="messages: text content blocks must be non-empty"):
        ask(client, messages)


@pytest.mark.parametrize("content", ["", [{"type": "text", "text": "（没有输出）"}], " "])
def test_an_empty_string_or_a_non_empty_block_is_taken(client, content):
    """The empty string as a tool_result's content is let through (not verified against the API either way)."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, content))
    assert ask(client, messages).stop_reason


def test_the_same_tool_use_twice_gets_the_apis_400(client):
    """A resume that appends the dangling call's assistant message again, then answers it: the API refuses the
    repeated id ("messages.N.content.M: `tool_use` ids must be unique", anthropics/claude-code#28515)."""
    messages, tool_use = _messages_until_send(client)
    messages.append(messages[-1])
    messages.append(tool_result(tool_use, "已发送"))
    with pytest.raises(anthropic.BadRequestError, match=r"messages\.\d+\.content\.\d+: `tool_use` ids must be unique"):
        ask(client, messages)


@pytest.mark.parametrize("extra", [{"name": "send_email"}, {"status": "unknown"}])
def test_a_tool_result_with_a_field_the_api_does_not_know_gets_its_400(client, extra):
    """The API's schema refuses extra fields in a tool_result (anthropics/claude-code#4378's wording)."""
    messages, tool_use = _messages_until_send(client)
    messages.append(tool_result(tool_use, "结果未知", **extra))
    field = next(iter(extra))
    refused = rf"content\.0\.tool_result\.{field}: Extra inputs are not permitted"
    with pytest.raises(anthropic.BadRequestError, match=refused):
        ask(client, messages)
    block = messages[-1]["content"][0]
    messages[-1]["content"][0] = {k: v for k, v in block.items() if k != field} | {"is_error": True}
    assert ask(client, messages).stop_reason


@pytest.mark.parametrize("shape", [None, *TOOL_CALL_SHAPES, *ENDING_SHAPES])
def test_a_streamed_reply_is_the_reply_create_gives(shape):
    """client.messages.stream(...) and create(..., stream=True) read server-sent events that add up to the same
    message create() returns, in every shape of reply (the ids aside: each reply draws new ones)."""
    messages = [{"role": "user", "content": "给团队发一封邮件，说周五的会改到下午三点。"}]

    def without_ids(message):
        dumped = message.model_dump(exclude_none=True)
        return {**dumped, "id": None, "content": [{**b, "id": None} for b in dumped["content"]]}

    created = scripted_client([shape]).messages.create(messages=messages, **request_params())
    with scripted_client([shape]).messages.stream(messages=messages, **request_params()) as stream:
        streamed = stream.get_final_message()
    events = list(scripted_client([shape]).messages.create(messages=messages, stream=True, **request_params()))
    assert without_ids(streamed) == without_ids(created)
    assert [e.type for e in events][0] == "message_start" and events[-1].type == "message_stop"
    assert events[-2].delta.stop_reason == created.stop_reason


@pytest.mark.parametrize("said", UNKNOWN_SAID + FAILURE_IN_DOUBT + (
    "这次调用的结果未确认。", "有没有发出去不好说，请先看看已发送的邮件。", "状态不明。", "结果尚待核实。",
    "The outcome is unconfirmed.", "Check the sent mail before anything else."))
def test_a_result_that_says_unknown_or_to_look_says_so(said):
    assert says_unknown(said.format(tool="send_email"))


@pytest.mark.parametrize("said", NEITHER + (
    "send_email：邮件服务器现在连不上。", "send_email 已经执行过了（台账里有它的意图记录），不用再发，直接继续下一步。",
    "The mail server cannot be reached right now."))
def test_a_result_that_only_says_what_happened_does_not(said):
    assert not says_unknown(said)
