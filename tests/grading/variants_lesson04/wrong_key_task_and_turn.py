"""错误（照搬第 9 节的 Temporal：「Workflow Run ID 加 Activity ID」）：execute_with_ledger 多了一个参数 key（默认 call["id"]），
run_agent 的循环传 f"{任务的 SHA-1 前 12 位}-{turns}"（「任务是 workflow，轮次是 activity」），台账里照样记 toolUseId。
这把键在重启之间不变，可同样措辞的两个任务（同一封周报每周发一次）第 n 轮的键相同，服务端把第二个任务的信当成重发；
而对账时 reconcile 经 execute_with_ledger(pending, ledger) 重发、按 id 问服务端，用的又是 tool_use id：两把键对不上，
服务端说没收到，带另一把键再发，信就两封。课文：键就是这次调用的 tool_use id。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger, key=None):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    key = key or call["id"]
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=key)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
# %% run_agent
import hashlib


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    run_id = hashlib.sha1(json.dumps(state["task"], ensure_ascii=False).encode()).hexdigest()[:12]
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)  # 存档点 A
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger, key=f"{run_id}-{state['turns']}")
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
