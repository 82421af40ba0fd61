"""错误：reconcile 自己读台账（按字节、只按 b"\\n" 分行），却把每一行读不出来都当成文件坏了、抛 ValueError，
包括末尾没有换行的半行：一次追加被崩溃打断之后，续跑每次都失败，永远恢复不了。notebook：末尾的半行是没写完的追加，读的时候丢掉。"""
# %% reconcile
def strict_records(ledger):
    try:
        data = Path(ledger).read_bytes()
    except FileNotFoundError:
        return []
    records = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw:
            continue
        try:
            records.append(json.loads(raw.decode("utf-8")))
        except ValueError as exc:
            raise ValueError(f"台账 {ledger} 第 {number} 行读不出来：{exc}") from exc
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = strict_records(ledger)
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
        result["content"] = f"{pending['name']} 的结果未知：台账里只有意图，服务端答不上来；它可能已经生效，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
