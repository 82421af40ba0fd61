"""错误：reconcile 自己读台账、自己修末尾的半行——发现半行时用 "w" 模式把完整的那些行整份重写回去（再 fsync）。
重写的途中断电（先清空、还没写完），台账里所有的记录都没了：悬空调用的 intent/outcome 一丢，下次恢复就当成从没开始、再做一次。
课程的 read_ledger 只截掉末尾半行（ftruncate），旧记录一个字节都不碰；台账只追加、不修改。"""
# %% reconcile
def load_ledger(ledger):
    """读出完整的记录；末尾有半行（崩溃时没写完的追加）就把它去掉，写回文件。"""
    path = Path(ledger)
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").split("\n")
    complete, tail = lines[:-1], lines[-1]
    if tail:
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in complete))
            f.flush()
            os.fsync(f.fileno())
    return [json.loads(line) for line in complete]


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
