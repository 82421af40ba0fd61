"""错误：reconcile 用自己写的读台账函数，把最后一行一律当成可能写了一半的，不管它有没有换行结尾：末尾的半行截掉（对），
可一条写完了的最后一条记录也被丢掉（错）。悬空调用的最后一条记录正好是台账的最后一行时（崩溃就发生在它刚写完之后，最常见），
它就像从没写过：只有 intent 的当成没开始、又执行一次，有 outcome 的当成只有 intent。"""
# %% reconcile
def load_ledger(ledger):
    path = Path(ledger)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    complete = data[:data.rfind(b"\n") + 1]
    if len(complete) < len(data):  # 末尾没有换行的半行：截掉
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, len(complete))
            os.fsync(fd)
        finally:
            os.close(fd)
    lines = complete.decode("utf-8").split("\n")[:-1]
    return [json.loads(line) for line in lines[:-1] if line.strip()]  # 最后一行也许没写完，不要


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = load_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = next(r["output"] for r in records
                                 if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = f"{pending['name']} 的结果未知：台账里只有意图，服务端答不上来，它可能已经生效，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp

