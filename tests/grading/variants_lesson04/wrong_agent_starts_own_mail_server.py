"""错：run_agent 在自己里面包了一层 `with MailServer():`（「发信要在 MailServer 里」）：每次运行都起一台新的、空的邮件服务器，
信发到了它那里，调用方的服务器一封也收不到；续跑时按键去问的也是一台新服务器，它不记得上一次收过的信。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    with MailServer():  # 发信要有邮件服务器：在 run_agent 里自己起一台
        if client is None:
            client = make_client()
        ledger = str(Path(path).with_name("ledger.jsonl"))
        state = load_checkpoint(path)
        if state is None:
            state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                     "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
        elif state["pendingToolUse"] is not None:
            state = reconcile(state, ledger)
            save_checkpoint(state, path)
        while state["turns"] < MAX_TURNS:
            state["turns"] += 1
            response = client.messages.create(messages=state["messages"], **request_params())
            state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
            state["messages"].append(assistant_message(response))
            calls = [block for block in response.content if block.type == "tool_use"]
            state["pendingToolUse"] = ({"id": calls[0].id, "name": calls[0].name, "input": calls[0].input}
                                       if calls else None)
            save_checkpoint(state, path)  # 存档点 A
            if not calls:
                break
            call = state["pendingToolUse"]
            if call["name"] in READ_ONLY_TOOLS:
                output = execute_tool(call["name"], call["input"])
            else:
                output = execute_with_ledger(call, ledger)
            state["messages"].append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": output}]})
            state["pendingToolUse"] = None
            save_checkpoint(state, path)  # 存档点 B
        return state
