"""The model the lessons talk to: real Claude with a key, a scripted stand-in without.

`make_client()` returns a real `anthropic.Anthropic` client either way. Offline,
its HTTP requests never leave the process: the SDK's own transport hands them
to `scripted_reply`, which answers with the JSON the Messages API would send,
so the student's code parses real `Message` / `ToolUseBlock` objects and gets
the API's real 400 error when a tool_use is left without its tool_result.

The scripted model is a small policy, not a recording: it reads the request's
messages and decides the next step, so a conversation resumed from any
checkpoint carries on sensibly. The same conversation gets the same step; its
ids are new every time, as the API's are (`new_id`).
"""
import functools
import json
import os
import re
import secrets

import anthropic
import httpx2

from .tools import TOOLS

MODEL = os.environ.get("COURSE_MODEL", "claude-sonnet-5-5")
# The 200 body names the model that answered, which for an alias is a dated snapshot
# (a request for claude-haiku-4-5 comes back as claude-haiku-4-5-20251001). These are the
# snapshots anthropic 2.14.0 lists; a model it lists without one answers with its own name.
DATED_MODELS = {
    "claude-haiku-4-5": "claude-haiku-4-5-20251001",
    "claude-opus-4-5": "claude-opus-4-5-20251101",
    "claude-sonnet-4-5": "claude-sonnet-4-5-20250929",
}
OFFLINE_ENV = "COURSE_OFFLINE"  # set to 1 to use the scripted model even with a key

SYSTEM_PROMPT = (
    "你是一个能调用工具的助理，工作区里有本周的会议纪要（./notes）和团队通讯录（./team.md）。"
    "每次只调用一个工具。发邮件是发出后无法撤回的操作：如果一次 send_email 的结果未知，"
    "先用 list_sent_emails 查清楚是否已经发出，再决定要不要重发。"
)


def request_params() -> dict:
    """Everything `client.messages.create()` needs besides `messages`."""
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": SYSTEM_PROMPT,
        "tools": TOOLS,
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
    }


def make_client(offline: bool | None = None) -> anthropic.Anthropic:
    """Real Claude when ANTHROPIC_API_KEY is set (and COURSE_OFFLINE is not 1), else the scripted model."""
    if offline is None:
        offline = os.environ.get(OFFLINE_ENV) == "1" or not os.environ.get("ANTHROPIC_API_KEY")
    if not offline:
        return anthropic.Anthropic()
    return scripted_client()


def scripted_client(shapes=()) -> anthropic.Anthropic:
    """A client of the offline model whose reply number i (counting replies, not refused requests) is carried
    in `shapes[i]` (see `shaped`; None or past the end: as the policy gives it)."""
    answered = []

    def answer_in_shape(body: dict) -> tuple:
        status, reply, request_id = answer(body, shapes[len(answered)] if len(answered) < len(shapes) else None)
        if status == 200:
            answered.append(reply)
        return status, reply, request_id

    return offline_client(answer_in_shape)


def offline_client(answer_body) -> anthropic.Anthropic:
    """A client whose requests never leave the process: `answer_body(request body)` gives (status, reply, request
    id), and the SDK reads the reply as it reads the API's."""
    def handle(request: httpx2.Request) -> httpx2.Response:
        # A function, not a functools.partial: a student's code that looks at the handler finds the same kind of
        # object in the notebook as in the grader (tests/test_sandbox_isolation.py).
        return _http_answer(answer_body, request)

    return anthropic.Anthropic(api_key="offline", http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
                               max_retries=0)


def planned_client(calls) -> anthropic.Anthropic:
    """A client of a model that asks for the tool calls `calls` ({"name", "input"}) one per reply, in order, then
    ends (see `planned_reply`)."""
    answered = []

    def answer_planned(body: dict) -> tuple:
        status, reply = planned_reply(body.get("messages"), calls, len(answered))
        if status == 200:
            answered.append(reply)
        return status, reply, new_id("req_", 24)

    return offline_client(answer_planned)


def planned_reply(messages, calls, answered: int) -> tuple:
    """(status, reply number `answered`) of a model that asks for the tool calls `calls` one per reply, in order,
    then ends: for tools the scripted model never asks for (lesson 4's other tools with effects). A request the API
    would refuse gets its 400."""
    try:
        check_tool_pairing(messages if isinstance(messages, list) else [])
    except InvalidRequest as exc:
        return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": str(exc)}}
    if answered < len(calls):
        planned = calls[answered]
        content = [{"type": "text", "text": f"接下来调用 {planned['name']}。"},
                   {"type": "tool_use", "id": new_id("toolu_01"),
                    "name": planned["name"], "input": dict(planned["input"])}]
        stop = "tool_use"
    else:
        content, stop = [{"type": "text", "text": "都办好了。"}], "end_turn"
    usage = {"input_tokens": 1500 + 41 * answered, "output_tokens": 30 + answered % 5}
    return 200, {"id": new_id("msg_01"), "type": "message", "role": "assistant",
                 "model": MODEL, "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}


def content_blocks(message: dict) -> list:
    """A message's content as a list of blocks: the API reads a plain string as one text block."""
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


# --- the HTTP side -------------------------------------------------------------------------

class InvalidRequest(Exception):
    """What the Messages API answers with HTTP 400 invalid_request_error."""


def answer(body: dict, shape: str | None = None) -> tuple:
    """The offline model's answer to one Messages API request body: (200, the reply, request id), or the
    API's (400, error, request id). `shape`: how the reply carries the policy's step (see `shaped`)."""
    request_id = new_id("req_", 24)
    try:
        return 200, shaped(scripted_reply(body), shape, body.get("max_tokens", 1024)), request_id
    except InvalidRequest as exc:
        error = {"type": "error", "error": {"type": "invalid_request_error", "message": str(exc)},
                 "request_id": request_id}
        return 400, error, request_id


def answer_request(request: httpx2.Request) -> httpx2.Response:
    """The offline model's HTTP answer to one Messages API request."""
    return _http_answer(answer, request)


def _http_answer(answer_body, request: httpx2.Request) -> httpx2.Response:
    """`answer_body(request body)`'s (status, reply, request id) as the API sends it, streamed if the request asks."""
    body = json.loads(request.content)
    return _response(*answer_body(body), streamed=body.get("stream") is True)


def _response(status: int, reply: dict, request_id: str, streamed: bool = False) -> httpx2.Response:
    headers = {"request-id": request_id}
    if status != 200:  # the SDK reads this before its own rules: the API marks a 400 as final, and a 529 here
        headers["x-should-retry"] = "false"  # stands for an API still overloaded after the client's retries
    if status == 200 and streamed:  # client.messages.stream(...), or create(..., stream=True)
        headers["content-type"] = "text/event-stream"
        return httpx2.Response(200, content=server_sent_events(reply), headers=headers)
    return httpx2.Response(status, json=reply, headers=headers)


def server_sent_events(reply: dict) -> bytes:
    """A whole reply as the API streams it: message_start, each block's start, delta and stop, then message_delta
    (the stop reason and the output tokens) and message_stop."""
    events = [("message_start", {"message": {**reply, "content": [], "stop_reason": None, "stop_sequence": None,
                                             "usage": {**reply["usage"], "output_tokens": 1}}})]
    for index, block in enumerate(reply["content"]):
        if block["type"] == "text":
            start, delta = {**block, "text": ""}, {"type": "text_delta", "text": block["text"]}
        elif block["type"] == "tool_use":
            start, delta = {**block, "input": {}}, {"type": "input_json_delta",
                                                    "partial_json": json.dumps(block["input"], ensure_ascii=False)}
        else:
            start, delta = block, None
        events.append(("content_block_start", {"index": index, "content_block": start}))
        if delta is not None:
            events.append(("content_block_delta", {"index": index, "delta": delta}))
        events.append(("content_block_stop", {"index": index}))
    stop = {"stop_reason": reply["stop_reason"], "stop_sequence": reply.get("stop_sequence")}
    if "stop_details" in reply:
        stop["stop_details"] = reply["stop_details"]
    events.append(("message_delta", {"delta": stop, "usage": {"output_tokens": reply["usage"]["output_tokens"]}}))
    events.append(("message_stop", {}))
    return "".join(f"event: {name}\ndata: {json.dumps({'type': name, **data}, ensure_ascii=False)}\n\n"
                   for name, data in events).encode()


ID_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def new_id(prefix: str, length: int = 22) -> str:
    """An id as the API gives one (toolu_01…, msg_01…, req_…): never seen before, even when the same request is
    sent again. A run_agent that loses a dangling call and has the model ask again gets a new call with a new id,
    so a new idempotency key: a second email really goes out, in the notebook as when graded."""
    return prefix + "".join(secrets.choice(ID_CHARACTERS) for _ in range(length))


def merge_consecutive_turns(messages: list) -> list:
    """The conversation as the API counts it: consecutive messages of one role become one.

    The API joins them before it checks anything, so an error's location
    (messages.N.content.M) counts merged turns: [user text, user tool_result] is
    messages.0.content.1, not messages.1.content.0.
    """
    merged = []
    for message in messages:
        if merged and message.get("role") == merged[-1]["role"]:
            merged[-1]["content"] += content_blocks(message)
        else:
            merged.append({"role": message.get("role"), "content": content_blocks(message)})
    return merged


# The fields each content block must have, with their JSON types, as the Messages API validates a request.
REQUIRED_FIELDS = {"text": {"text": str}, "tool_use": {"id": str, "name": str, "input": dict},
                   "tool_result": {"tool_use_id": str}}
# The API's schema forbids other fields ("messages.3.content.0.tool_result.status: Extra inputs are not
# permitted", the wording of anthropics/claude-code#4378): checked for the block a student builds by hand.
ALLOWED_FIELDS = {"tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"}}


def _check_fields(messages) -> None:
    """Raise InvalidRequest, in the API's wording, for a message or block without what the API requires."""
    if not isinstance(messages, list):
        raise InvalidRequest("messages: Input should be a valid list")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise InvalidRequest(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        content = message.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise InvalidRequest(f"messages.{i}.content: Input should be a valid string or list")
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if not isinstance(kind, str):
                raise InvalidRequest(f"messages.{i}.content.{j}: Input should be a valid dictionary with a `type`")
            for field, wanted in REQUIRED_FIELDS.get(kind, {}).items():
                if field not in block:
                    raise InvalidRequest(f"messages.{i}.content.{j}.{kind}.{field}: Field required")
                if not isinstance(block[field], wanted):
                    raise InvalidRequest(f"messages.{i}.content.{j}.{kind}.{field}: Input should be a valid "
                                         f"{'string' if wanted is str else 'dictionary'}")
            extra = sorted(set(block) - ALLOWED_FIELDS.get(kind, set(block)))
            if extra:
                raise InvalidRequest(f"messages.{i}.content.{j}.{kind}.{extra[0]}: Extra inputs are not permitted")
            inner = block.get("content") if kind == "tool_result" else None
            if inner is not None and not isinstance(inner, str) and not (
                    isinstance(inner, list) and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in inner)):
                raise InvalidRequest(f"messages.{i}.content.{j}.tool_result.content: Input should be a valid string "
                                     "or list of content blocks")
            # The API refuses an empty text block, in a message or in a tool_result (a tool's empty output wrapped
            # as [{"type": "text", "text": ""}]): anthropic-sdk-go#377, zed#27130. A tool_result whose content is
            # the empty string is let through: whether the API takes it is not verified either way.
            blocks = [block] + (inner if isinstance(inner, list) else [])
            if any(b.get("type") == "text" and b.get("text") == "" for b in blocks):
                raise InvalidRequest("messages: text content blocks must be non-empty")


def check_tool_pairing(messages: list) -> None:
    """Raise InvalidRequest with the API's wording where the Messages API would refuse."""
    _check_fields(messages)
    if not messages or messages[0].get("role") != "user":
        raise InvalidRequest("messages: first message must use the \"user\" role")
    messages = merge_consecutive_turns(messages)
    seen_ids = set()
    for i, message in enumerate(messages):
        blocks = content_blocks(message)
        if message.get("role") == "assistant":
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_use":
                    if block.get("id") in seen_ids:
                        raise InvalidRequest(f"messages.{i}.content.{j}: `tool_use` ids must be unique")
                    seen_ids.add(block.get("id"))
            asked = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            following = content_blocks(messages[i + 1]) if i + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in following if b.get("type") == "tool_result"}
            missing = [tool_id for tool_id in asked if tool_id not in answered]
            if missing:
                raise InvalidRequest(
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` "
                    "block in the next message.")
            continue
        previous = content_blocks(messages[i - 1]) if i > 0 and messages[i - 1].get("role") == "assistant" else []
        asked_before = {b.get("id") for b in previous if b.get("type") == "tool_use"}
        seen_other_block = False
        for j, block in enumerate(blocks):
            if block.get("type") != "tool_result":
                seen_other_block = True
                continue
            where = f"messages.{i}.content.{j}"
            if block.get("tool_use_id") not in asked_before:
                raise InvalidRequest(
                    f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: {block.get('tool_use_id')}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")
            if seen_other_block:
                raise InvalidRequest(f"{where}: `tool_result` blocks must come first in the user message content.")
            if "is_error" in block and not isinstance(block["is_error"], bool):
                raise InvalidRequest(f"{where}.is_error: Input should be a valid boolean")


# --- the policy ----------------------------------------------------------------------------

# Words no tool's own error text uses: the outcome is not known ("无法确定它是否已经生效" as much as "结果未知"), in
# Chinese or English. Not where they are about something else: "原因不明", "未知错误", "可能需要重试", "unknown error".
UNKNOWN_WORDS = re.compile(r"未知(?!错误|原因)|不确定|不知道(?!为什么|为何|原因)|(?<!原因)(?:不清楚|不明)(?!原因)|"
                           r"可能(?!需要|要|得)|不得而知|说不准|说不清|不一定|或许|也许|说不定|"
                           r"(?<!原因)(?:无法|不能|没法|难以|未能|没能|无从)(?:确定|确认|得知|判断|知道|知晓|断定)(?!原因|为什么|为何)|"
                           r"与否|(?<!原因)不详|"
                           r"\b(?:unknown(?! (?:error|reason|cause))|uncertain|unclear|undetermined|possibly|perhaps|"
                           r"not (?:known|sure|certain|clear)|no way to (?:know|tell)|"
                           r"(?:cannot|can'?t|could ?n[o']t|unable to) "
                           r"(?:tell|know|be sure|determine|confirm|verify|say)|"
                           r"(?:may|might|could)(?: or (?:may|might) not)?(?: already)? have)\b", re.I)
# A definite claim that the call failed or did not take effect: a tool's own error text ("错误…"), or saying so in
# other words ("执行失败", "没有生效", "邮件没有发出", "did not take effect", "was not sent"). "有没有生效" asks.
FAILURE_WORDS = re.compile(r"^(?:错误|error\b)|失败|(?<!有)(?:没有|没能|没|未能|未|不会)被?"
                           r"(?:生效|执行|运行|发出|发送|寄出|送达|成功|完成)|"
                           r"\b(?:fail(?:s|ed|ure)?|unsuccessful(?:ly)?|no effect)\b|"
                           r"\b(?:did|does|was|were|is|has|have|had)(?:n't| not)(?: been)? (?:take|taken|took|go|gone|"
                           r"run|ran|execut|sen[dt]|deliver|succe|complet|happen|appl|perform|carr|process)\w*|"
                           r"\bnever (?:\w+ )?(?:took|went|ran|run|executed|sent|delivered|succeeded|completed|"
                           r"happened)\b",
                           re.I)


def _history(messages: list) -> list:
    """Every answered tool call, oldest first: {name, input, output, failed, unknown}.

    `failed`: the tool_result says the call did not do its job, by its is_error flag
    or by a tool's own error text ("错误…"). `unknown`: flagged is_error without claiming
    a failure, or saying the outcome is unknown (`reads_as_unknown`): what reconcile sends when
    nobody knows whether the call ran. A model tells the two apart by reading the text.
    """
    results = {}
    for message in messages:
        for block in content_blocks(message):
            if block.get("type") == "tool_result":
                content = block.get("content")
                if content is None:  # null reads as no content (as _check_fields lets it through)
                    content = ""
                if isinstance(content, list):
                    content = "".join(part.get("text", "") for part in content)
                results[block.get("tool_use_id")] = (content, bool(block.get("is_error")))
    calls = []
    for message in messages:
        for block in content_blocks(message):
            if block.get("type") == "tool_use" and block.get("id") in results:
                output, is_error = results[block["id"]]
                calls.append({"name": block["name"], "input": block.get("input", {}), "output": output,
                              "failed": is_error or output.startswith("错误"),
                              "unknown": reads_as_unknown(output, is_error)})
    return calls


def reads_as_unknown(output: str, is_error: bool) -> bool:
    """Whether a model reads a tool_result as "nobody knows whether the call ran": flagged is_error, not claiming
    the call failed or did not take effect (FAILURE_WORDS) unless it says the outcome is unknown (UNKNOWN_WORDS) or
    to look first (_LOOK_FIRST), and not telling it to make the call again before it has looked (`asks_to_redo`):
    a model follows what the result tells it."""
    return (is_error and (FAILURE_WORDS.search(output) is None or UNKNOWN_WORDS.search(output) is not None
                          or _LOOK_FIRST.search(output) is not None)
            and asks_to_redo(output) is None)


def says_unknown(output: str) -> bool:
    """Whether the text says the outcome is unknown (UNKNOWN_WORDS, or that it is unsettled: "未确认", "不好说") or asks
    to look at how things stand (a verifying verb: 确认, 核实, 查看, list_sent_emails, check...): "the server is down"
    or "it was done already" alone does not."""
    return any(words.search(output) is not None for words in (UNKNOWN_WORDS, _UNSETTLED, _VERIFYING))


_UNSETTLED = re.compile(r"不好说|难说|不可知|(?:未经?|尚未|没有|没|待|有待)(?:确认|核实|证实|查明)|悬而未决|存疑|未定|"
                        r"\b(?:unconfirmed|unverified|not (?:yet )?(?:confirmed|verified)|unsettled|in doubt)\b", re.I)


# Reading a result for "do it again": a verb of doing the call again, unless the same clause before it warns
# against it or says what may happen ("不要重发", "可能会再发一封"), or words right after it say it is a statement
# ("重发没有成功", "重新执行可能导致…"). Such an instruction is fine once the text has said to look first: a
# verifying verb before it, a condition ("如果…"), "先" / "first" with a verifying verb anywhere, or a verifying
# verb after "before doing it again" ("重新执行之前，请确认现状", "重发前请先查一查").
_CLAUSE_END = "。；;！!？?\n，,：:"
_DOING = r"(?:调用|执行|运行|发送|发出|发|试|做|提交|来)"
_REDO = re.compile(rf"(?:重新|再次|再一次|再|重复|直接){_DOING}|重试|重发|重做|重跑|补发|补做|补跑|"
                   rf"(?:用|按|以|照)(?:同样|相同|原来|原先)的(?:参数|输入){_DOING}|(?:同样|相同)的(?:邮件|信)(?:再)?发|"
                   r"\b(?:re-?send|re-?try|re-?run|redo)\b|\bsend the same (?:email|message|mail)\b|"
                   r"\b(?:call|run|send|try|do|execute|invoke|issue|make|repeat)\w*\b[^.;!?\n]{0,40}?"
                   r"\b(?:again|once more|one more time|a second time)\b", re.I)
_NOT_AN_ORDER_BEFORE = re.compile(r"不要|不用|不必|无需|别|勿|不能|不可|不应|避免|以免|免得|否则|可能|会(?!议)|导致|"
                                  r"不需|无须|毋须|毋需|没必要|用不着|不该|不宜|禁止|严禁|不准|不许|不得(?!不)|是否|能否|可否|"
                                  r"\b(?:don'?t|do not|never|avoid|not|without|would|could|may|might|will)\b", re.I)
_NOT_AN_ORDER_AFTER = re.compile(r"\s*(?:没有|没|未|失败|了|过|的话|可能|会|将|导致|也|都|与否)")
# A negation right before the verb says the call was not done again: "未重新执行", "没有重发", "不再执行", "没有被重新
# 执行", "不自动重试", "未做重试" (not "要不重发", "不得不重发", "何不重发": those ask for it).
_NEGATED_BEFORE = re.compile(r"(?:(?<![要得何])不|没有|没|未|未曾|不曾)\s*(?:自动|被|再次|做|去)?\s*$")
# English says so with a contraction before it ("wasn't rerun", "didn't redo") or inside "call ... again" ("the call
# hasn't been sent again").
_NEGATED_EN = re.compile(r"\b(?:not|never|\w+n['’]t)\b", re.I)
# The rest of the clause says what redoing it would bring: a warning, no order ("重新执行有风险", "重发存在重复的风险",
# "直接重发是危险的", "重新执行 send_email 有可能导致重复发送").
_RISK_AFTER = re.compile(r"风险|危险|不安全|重复|导致|造成|引起|后果")
_VERIFY = (r"(?<![未没无不])(?<!无法)(?<!没法)(?<!未经)(?<!不能)(?<!未能)(?<!没能)(?<!不用)(?<!无需)(?<!不必)(?<!不需)(?<!不需要)(?<!用不着)"
           r"(?:确认|核实|核对|核验|查证|查清|查明|查一下|查一查|查查|查看|查询|检查(?!点)|看一下|看一看|看看|弄清|搞清|"
           r"list_sent_emails|\b(?:verify|check|confirm|look up|find out)\b)")
_VERIFYING = re.compile(_VERIFY, re.I)
# "再次调用 list_sent_emails", "直接调用 list_sent_emails 查看": a call that looks, not the call done again.
_LOOKING_AFTER = re.compile(r"\s*(?:一次|一下)?\s*list_sent_emails", re.I)
_GUARD = re.compile(rf"{_VERIFY}|如果|假如|倘若|若(?!干)|如需|如要|要是|只有|除非|\b(?:if|unless|whether|once)\b", re.I)
_SENTENCE_END = "。；;！!？?\n"
_VERIFY_FIRST = re.compile(rf"(?:先|首先|\bfirst\b)[^{_CLAUSE_END}]{{0,16}}?{_VERIFY}|{_VERIFY}[^{_CLAUSE_END}]{{0,24}}\bfirst\b|"
                           rf"(?:{_REDO.pattern})\s*(?:之前|以前|前(?![面边头方后])|时|的时候)[^{_SENTENCE_END}]{{0,24}}?{_VERIFY}",
                           re.I)

# Telling the model to look at the outcome before anything, which only an unknown outcome calls for: "请先确认",
# "先核实", "请确认是否已经发出", "check whether it was sent", "verify first". Not "请检查邮件服务器后重试".
_LOOK_FIRST = re.compile(rf"(?:先|首先)[^{_CLAUSE_END}]{{0,8}}?(?:确认|核实|核对|查证|查清|查明|弄清|搞清|list_sent_emails)|"
                         rf"{_VERIFY}[^{_SENTENCE_END}]{{0,30}}?(?:是否|有没有|有无|现状|\bwhether\b|\bif (?:it|the)\b)|"
                         r"\b(?:verify|confirm|check)\b[^.;!?\n]{0,30}?\bfirst\b|"
                         r"\bfirst\b[^.;!?\n]{0,16}?\b(?:verify|confirm|check)\b",
                         re.I)


def asks_to_redo(output: str) -> str | None:
    """The words with which `output` tells the model to make the call again without looking first (None if it
    does not): "请重新调用 send_email，再执行一次" does; "请先确认现状，没有发出再重新发送" does not."""
    if _VERIFY_FIRST.search(output):
        return None
    for found in _REDO.finditer(output):
        before = output[:found.start()]
        clause = re.split(f"[{_CLAUSE_END}]", before)[-1]
        if (_NOT_AN_ORDER_BEFORE.search(clause) or _NEGATED_BEFORE.search(clause)
                or _NEGATED_EN.search(clause) or _NEGATED_EN.search(found.group())
                or _NOT_AN_ORDER_AFTER.match(output, found.end()) or _LOOKING_AFTER.match(output, found.end())
                or _RISK_AFTER.search(re.split(f"[{_CLAUSE_END}]", output[found.end():])[0])):
            continue
        if _GUARD.search(before):
            return None
        return found.group()
    return None


# Telling the model not to look, or to take the call as done: "不必核实", "当作已经完成", "no need to check", "assume it
# was sent". Not when the clause before says not to ("不要当作已经完成", "don't assume it was sent").
_SKIP_LOOKING = re.compile(r"(?:不必|不用|无需|无须|不需要|没必要|用不着)\s*(?:再|去|先)?\s*(?:核实|确认|核对|检查|查看|查证|查询|查)|"
                           r"(?:当作|当成|视为|视作|算作|就当)[^。；;！!？?\n]{0,8}?(?:完成|成功|做过|做了|发出|发送|发过|生效)|"
                           r"\bno need to (?:check|verify|confirm|look)|"
                           r"\b(?:assume|treat|consider)\b[^.;!?\n]{0,30}?"
                           r"\b(?:succeeded|successful|sent|done|worked|completed|delivered)\b", re.I)
_NOT_SO_BEFORE = re.compile(r"不要|不能|不可|不应|不该|别|勿|切勿|并非|\b(?:don'?t|do not|never|not|cannot|can'?t)\b", re.I)


def skips_looking(output: str) -> str | None:
    """The words with which `output` tells the model not to look how things stand, or to take the call as done
    ("不必核实，当作已经完成"): a result whose outcome is unknown must not (None if it does not)."""
    for found in _SKIP_LOOKING.finditer(output):
        clause = re.split(f"[{_CLAUSE_END}]", output[:found.start()])[-1]
        if not _NOT_SO_BEFORE.search(clause):
            return found.group()
    return None


def _matching(calls: list, name: str, input: dict) -> list:
    return [c for c in calls if c["name"] == name and all(c["input"].get(k) == v for k, v in input.items())]


def _succeeded(calls: list, name: str, **input) -> bool:
    return any(not c["failed"] for c in _matching(calls, name, input))


def _tried(calls: list, name: str, **input) -> bool:
    """Asked for already, whatever came back: a note that could not be read is not asked for again."""
    return bool(_matching(calls, name, input))


def _next_reading_step(calls: list):
    """Gather this week's conclusions: list the notes, grep the conclusions, read each note newest first."""
    if not _succeeded(calls, "list_dir", path="./notes"):
        return "我先看看 notes 文件夹里有哪些纪要。", "list_dir", {"path": "./notes"}
    if not _succeeded(calls, "grep", pattern="结论"):
        return "先把每份纪要里的结论行找出来。", "grep", {"pattern": "结论", "path": "./notes"}
    listing = next(c["output"] for c in calls if c["name"] == "list_dir" and not c["failed"])
    notes = sorted((n for n in listing.splitlines() if re.fullmatch(r"meeting-[\d-]+\.md", n)), reverse=True)
    for note in notes:
        path = f"./notes/{note}"
        if not _tried(calls, "read_file", path=path):
            return f"读一下 {note} 的全文。", "read_file", {"path": path}
    return None


def _unreadable(calls: list) -> str:
    missed = [c["input"].get("path") for c in calls if c["name"] == "read_file" and c["failed"]
              and not _succeeded(calls, "read_file", path=c["input"].get("path"))]
    return f"\n（{'、'.join(missed)} 读不出来，没有算进去。）" if missed else ""


def _conclusions(calls: list) -> str:
    grep_output = next(c["output"] for c in calls if c["name"] == "grep" and not c["failed"])
    lines = [line.split(": ", 1)[1] for line in grep_output.splitlines() if ": " in line]
    return "\n".join(f"- {line.removeprefix('结论：')}" for line in lines)


def _meeting_notes_policy(calls: list):
    step = _next_reading_step(calls)
    if step:
        return step
    notes_read = {c["input"].get("path") for c in calls if c["name"] == "read_file" and not c["failed"]}
    return f"本周共 {len(notes_read)} 次会议，结论如下：\n{_conclusions(calls)}{_unreadable(calls)}"


EMAIL = {"to": "team@example.com", "subject": "本周结论"}


def _email_policy(calls: list):
    last = calls[-1] if calls else None
    if last and last["name"] == "send_email" and last["unknown"]:
        # The system prompt says: an outcome nobody knows is looked up before anything is sent again.
        return "上一次发信的结果不明，我先查一下服务器上是否已经发出。", "list_sent_emails", {"to": EMAIL["to"]}
    if last and last["name"] == "send_email" and last["failed"]:
        return f"邮件没有发出去：{last['output']}。请检查邮件服务器后再让我重试。"
    if last and last["name"] == "list_sent_emails" and len(calls) > 1 and calls[-2]["name"] == "send_email":
        if last["failed"]:
            # A check that could not be made leaves the outcome as unknown as before: sending now could be
            # the second email, so stop and leave it to a person.
            return (f"我没能查到已发送的邮件（{last['output'][:60]}），所以仍然不知道上一次发信有没有成功。"
                    "为了不让团队收到两封，我先不重发：请你确认邮件服务器上的记录后再告诉我。")
        if f"主题「{EMAIL['subject']}」" in last["output"]:
            return (f"我查了已发送邮件：主题「{EMAIL['subject']}」的邮件已经发给 {EMAIL['to']}，"
                    "崩溃前那次发送其实成功了，所以不再重发，避免团队收到两封。")
        return "服务器上没有这封邮件，说明上次没有发出去，现在重新发送。", "send_email", dict(EMAIL)
    if _succeeded(calls, "send_email"):
        return f"已把本周结论发给 {EMAIL['to']}，主题「{EMAIL['subject']}」。"
    step = _next_reading_step(calls)
    if step:
        return step
    if not _succeeded(calls, "read_file", path="./team.md"):
        return "查一下团队的邮件地址。", "read_file", {"path": "./team.md"}
    return "结论整理好了，发给全组。", "send_email", dict(EMAIL)


def _task_text(messages: list) -> str:
    return "".join(b.get("text", "") for b in content_blocks(messages[0]) if b.get("type") == "text")


def usage(request: dict, content: list) -> dict:
    """The usage the offline model reports for answering `request` with `content`."""
    # A made-up but steady rate, calibrated so that a run resumed from the lesson's
    # sample checkpoints reports numbers close to theirs (cpA 18420, cpB 19310).
    # The other fields are the ones a real response carries; this model caches nothing.
    context = json.dumps([request.get("system", ""), request.get("tools", []), request.get("messages") or []],
                         ensure_ascii=False)
    output_tokens = len(json.dumps(content, ensure_ascii=False)) // 2
    return {"input_tokens": 12_100 + len(context) * 3 // 2,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": output_tokens,
            "service_tier": "standard"}


def answering_model(requested: str) -> str:
    """The model name a 200 body carries for a request that named `requested`."""
    return DATED_MODELS.get(requested, requested)


def scripted_reply(request: dict) -> dict:
    """The Messages API response body for one request."""
    messages = request.get("messages") or []
    check_tool_pairing(messages)
    task, calls = _task_text(messages), _history(messages)
    if "邮件" in task:
        step = _email_policy(calls)
    elif "纪要" in task:
        step = _meeting_notes_policy(calls)
    else:
        step = "（离线脚本模型）我只会演示两个任务：「帮我整理这周的会议纪要」和「帮我把结论发邮件通知团队」。"
    if isinstance(step, str):
        content, stop_reason = [{"type": "text", "text": step}], "end_turn"
    else:
        text, name, tool_input = step
        content = [{"type": "text", "text": text},
                   {"type": "tool_use", "id": new_id("toolu_01"), "name": name, "input": tool_input}]
        stop_reason = "tool_use"
    return {
        "id": new_id("msg_01"),
        "type": "message",
        "role": "assistant",
        "model": answering_model(request.get("model", MODEL)),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage(request, content),
    }


# --- the same step, carried as the API may also send it ------------------------------------------
# The policy decides what the model does next; a shape is another reply the Messages API really sends for
# such a step (at most one tool_use: the requests ask for disable_parallel_tool_use). The first ones keep
# the tool call: a tool_use alone (as the API's own recorded replies have it), after several text blocks,
# before its text, in a reply cut off at max_tokens, or under end_turn. The others carry no tool call:
# the model stops, in several text blocks, with no content at all (an empty end_turn), cut off at
# max_tokens, at a stop sequence, or refused by the streaming classifiers.
TOOL_CALL_SHAPES = ("tool_only", "texts_then_tool", "tool_then_text", "tool_cut_off", "tool_end_turn")
ENDING_SHAPES = ("texts", "empty", "cut_off", "stop_sequence", "refusal")
STOP_SEQUENCE = "\n\n---"


def _halves(text: str) -> list:
    middle = max(1, len(text) // 2)
    return [{"type": "text", "text": text[:middle]}, {"type": "text", "text": text[middle:] or "。"}]


def shaped(reply: dict, shape: str | None, max_tokens: int = 1024) -> dict:
    """The scripted `reply` in another shape (TOOL_CALL_SHAPES, ENDING_SHAPES) of the same step; a tool call's
    shape leaves a reply without a tool call as it is."""
    calls = [b for b in reply["content"] if b["type"] == "tool_use"]
    if shape is None or (shape in TOOL_CALL_SHAPES and not calls):
        return reply
    text = "".join(b["text"] for b in reply["content"] if b["type"] == "text") or "好的。"
    whole = [{"type": "text", "text": text}]
    content, stop = {
        "tool_only": (calls, "tool_use"),
        "texts_then_tool": (_halves(text) + calls, "tool_use"),
        "tool_then_text": (calls + whole, "tool_use"),
        "tool_cut_off": (reply["content"], "max_tokens"),
        "tool_end_turn": (reply["content"], "end_turn"),
        "texts": (_halves(text), "end_turn"),
        "empty": ([], "end_turn"),
        "cut_off": ([{"type": "text", "text": text[:len(text) // 2 + 1]}], "max_tokens"),
        "stop_sequence": (whole, "stop_sequence"),
        "refusal": ([{"type": "text", "text": text[:len(text) // 3 + 1]}], "refusal"),
    }[shape]
    body = {**reply, "content": content, "stop_reason": stop, "usage": dict(reply["usage"])}
    if stop == "max_tokens":
        body["usage"]["output_tokens"] = max_tokens
    elif stop == "stop_sequence":
        body["stop_sequence"] = STOP_SEQUENCE
    elif stop == "refusal":
        body["stop_details"] = {"type": "refusal", "category": None, "explanation": None}
    if not content:
        body["usage"]["output_tokens"] = 3
    return body


def assistant_message(response) -> dict:
    """The response as a plain-JSON assistant message, ready for `messages` and for json.dump."""
    return {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in response.content]}


@functools.cache
def warm_up() -> None:
    """Two requests to the offline model, one answered with text and a tool_use and one refused with 400.

    The SDK loads its lazy imports and builds the pydantic schemas of the response and of the error
    on first use. Done once before forking, the agent processes forked afterwards skip that work.
    """
    client = make_client(offline=True)
    task = [{"role": "user", "content": "帮我把结论发邮件通知团队"}]
    reply = client.messages.create(**request_params(), messages=task)
    unanswered = task + [assistant_message(reply), {"role": "user", "content": "继续"}]
    try:
        client.messages.create(**request_params(), messages=unanswered)
    except anthropic.BadRequestError:
        pass
