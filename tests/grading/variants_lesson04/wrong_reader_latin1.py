"""错误（非 ASCII）：reconcile 用自己写的读台账函数，吸取了「严格按 UTF-8 解码会在半个汉字上抛 UnicodeDecodeError」的教训，
改用 latin-1 解码（「它什么字节都能解」），按最后一个换行截掉半行、fsync 也都对。可台账是 UTF-8 写的：
每个汉字读成了三个乱码字符，复用的 outcome（邮件服务器的回答、工具的中文输出）原样变成乱码交给模型。"""
# %% reconcile
def read_records(ledger):
    path = Path(ledger)
    try:
        text = path.read_text(encoding="latin-1")
    except FileNotFoundError:
        return []
    keep = text.rfind("\n") + 1
    if keep < len(text):  # latin-1 一个字符一个字节：字符数就是字节数
        with open(path, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
    records = []
    for number, line in enumerate(text[:keep].split("\n")[:-1], start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"台账 {path} 第 {number} 行坏了") from None
        records.append(record)
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_records(ledger)
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
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
