"""错误（组合）：wrong_reader_strict_utf8 的读台账函数（read_text 严格按 UTF-8 解码整份台账），配上 full_pwrite_bytes_ledger 的
append_ledger（一个字节一个字节地 pwrite）。进程杀在追加的中途，半行可能停在一个中文字符的中间：read_text 抛 UnicodeDecodeError，
续跑在对账里崩溃。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        end = os.fstat(fd).st_size
        for i in range(len(line)):
            os.pwrite(fd, line[i:i + 1], end + i)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
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

