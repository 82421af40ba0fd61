"""错误：reconcile 用自己写的读台账函数：按字节找到最后一个换行、ftruncate + fsync 截掉末尾半行（这一步和课程的 read_ledger 一样对），
再把完整部分解码后用 str.splitlines() 分行，读不出来的行跳过。splitlines 还在 U+2028、U+2029、U+0085 这些字符处断行，
而 json.dumps(ensure_ascii=False) 不转义它们：一条 input 或 output 里带 U+2028 的记录被切成两段、都读不出来、被跳过——
比如 append_line 的 intent 丢了，恢复时当成「从没开始」再追加一次。课程的 read_ledger 只按 "\n" 分行（它的注释就写着这一点）。"""
# %% reconcile
def load_ledger(ledger):
    path = Path(ledger)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    complete = data[:data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, len(complete))
            os.fsync(fd)
        finally:
            os.close(fd)
    records = []
    for line in complete.decode("utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # 读不出来的行跳过
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

