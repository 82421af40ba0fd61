"""错误：reconcile 用自己写的读台账函数：read_text(encoding="utf-8") 读整份台账，找最后一个换行，把完整部分 encode 回去
算出字节数，再 ftruncate + fsync（吸取了「按字符数截」的教训，字节数是对的）。可断电留下的半行是按字节截断的：
半行停在一个中文字符的中间时，read_text 先抛 UnicodeDecodeError，对账崩溃，任务再也续不上。
课程的 read_ledger 先按字节截掉半行、再解码。"""
# %% reconcile
def load_ledger(ledger):
    path = Path(ledger)
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    complete = text[:text.rfind("\n") + 1]
    if len(complete) < len(text):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, len(complete.encode("utf-8")))
            os.fsync(fd)
        finally:
            os.close(fd)
    return [json.loads(line) for line in complete.split("\n") if line.strip()]


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

