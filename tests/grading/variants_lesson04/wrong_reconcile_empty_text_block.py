"""错：和 full_styled_classes_logging 一样，只是 reconcile 总把结果包成文字块 [{"type": "text", "text": 输出}]：台账里复用的
outcome 或重新执行的输出是空字符串时，就成了空的文字块，API 回 400（messages: text content blocks must be non-empty）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    fresh = not path.is_file()
    with path.open("a", encoding="utf-8") as out:
        print(json.dumps(record, ensure_ascii=False), file=out)
        out.flush()
        os.fsync(out.fileno())
    if fresh:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
# %% extra after append_ledger
import copy
import logging

log = logging.getLogger("lesson04")


class JsonlLedger:
    """台账：一个 JSON Lines 文件。"""

    def __init__(self, path):
        self.path = Path(path)

    def records(self):
        return read_ledger(self.path)

    def intent(self, call):
        log.info("intent %s", call["id"])
        append_ledger(self.path, {"type": "intent", "toolUseId": call["id"], "name": call["name"],
                                  "input": call["input"]})

    def outcome(self, call_id, output):
        log.info("outcome %s", call_id)
        append_ledger(self.path, {"type": "outcome", "toolUseId": call_id, "output": output})

    @staticmethod
    def kinds(records, call_id):
        return {r.get("type") for r in records if r.get("toolUseId") == call_id}

    @staticmethod
    def recorded_output(records, call_id):
        for r in reversed(records):
            if r.get("toolUseId") == call_id and r.get("type") == "outcome":
                return r["output"]
        raise LookupError(call_id)
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    if call["name"] in READ_ONLY_TOOLS:
        log.debug("read-only %s", call["name"])
        return execute_tool(call["name"], call["input"])
    book = JsonlLedger(ledger)
    book.intent(call)
    output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
    book.outcome(call["id"], output)
    return output
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp.get("pendingToolUse")
    if not pending:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    match sorted(JsonlLedger.kinds(records, pending["id"])):
        case [*_, "outcome"]:
            return "reuse"
        case []:
            return "execute"
    try:
        answer = lookup(pending["name"], pending["id"])
    except ServiceUnavailable as exc:
        log.warning("service cannot answer: %s", exc)
        return "is_error"
    if answer is None:
        return "execute"
    return "record"
# %% reconcile
def reconcile(cp, ledger):
    cp = copy.deepcopy(cp)
    pending = cp["pendingToolUse"]
    book = JsonlLedger(ledger)
    records = book.records()
    asked = {}

    def remembering_lookup(name, key):
        asked["answer"] = lookup_effect(name, key)
        return asked["answer"]

    action = recovery_action(cp, records, remembering_lookup)
    log.info("reconcile %s -> %s", pending["id"], action)
    flag = False
    if action == "rerun":
        text = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        text = JsonlLedger.recorded_output(records, pending["id"])
    elif action == "record":
        text = asked["answer"]
        book.outcome(pending["id"], text)
    elif action == "execute":
        text = execute_with_ledger(pending, ledger)
    else:
        flag = True
        text = f"{pending['name']} 结果未知：台账里只有意图，服务端答不上来；它可能已经生效，请先确认。"
    block = {"type": "tool_result", "tool_use_id": pending["id"], "content": [{"type": "text", "text": text}]}
    if flag:
        block["is_error"] = True
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
# %% run_agent
class _AgentRun:
    def __init__(self, task, client, path):
        self.client = client or make_client()
        self.path = Path(path)
        self.ledger = self.path.parent / "ledger.jsonl"
        self.task = task

    def start(self):
        state = load_checkpoint(self.path)
        if state is None:
            return {"version": CHECKPOINT_VERSION, "task": self.task, "turns": 0, "tokensUsed": 0,
                    "messages": [{"role": "user", "content": self.task}], "pendingToolUse": None}
        if state["pendingToolUse"] is None:
            return state
        state = reconcile(state, self.ledger)
        save_checkpoint(state, self.path)
        return state

    def step(self, state):
        state["turns"] += 1
        response = self.client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        calls = [b for b in response.content if b.type == "tool_use"]
        state["pendingToolUse"] = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input} if calls else None
        save_checkpoint(state, self.path)
        if not calls:
            return False
        output = execute_with_ledger(state["pendingToolUse"], self.ledger)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": calls[0].id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, self.path)
        return True

    def run(self):
        state = self.start()
        while state["turns"] < MAX_TURNS and self.step(state):
            pass
        return state


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    return _AgentRun(task, client, path).run()
