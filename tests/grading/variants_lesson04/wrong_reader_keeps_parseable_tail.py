"""错误：reconcile 用自己写的读台账函数，按「能不能解析」判断末尾是不是半行：最后一段没有换行、却是一条完整的 JSON 时，
当成写完的记录留下，也不截掉（只有解析失败的半行才按字节 ftruncate + fsync）。一次追加断电后完全可能只剩 JSON 没有换行
（数据落了一部分，换行没落；或者 JSON 和换行分两次 write）：这条 intent 的追加从没返回，却被当成记录；更糟的是文件没有截掉，
下一条追加接在它后面，两条记录挤在同一行，之后这一行谁也读不出来（课程的 read_ledger 抛 ValueError，这里被跳过：
intent 和 outcome 一起消失）。课文：末尾没有换行的那半行「它的追加从没返回过，等于没写」，要从文件里截掉。"""
# %% reconcile
def load_ledger(ledger):
    path = Path(ledger)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    pieces = data.split(b"\n")
    records = []
    for number, piece in enumerate(pieces):
        if not piece.strip():
            continue
        try:
            records.append(json.loads(piece.decode("utf-8")))
        except (json.JSONDecodeError, UnicodeDecodeError):
            if number == len(pieces) - 1:  # 末尾读不出来的半行：截掉
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.ftruncate(fd, len(data) - len(piece))
                    os.fsync(fd)
                finally:
                    os.close(fd)
            # 中间读不出来的行跳过
    return records


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

