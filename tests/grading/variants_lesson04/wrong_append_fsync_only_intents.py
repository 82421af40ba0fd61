"""错误（第一次写时常见）：课文说「意图记录必须在工具执行之前真正落到磁盘上」，append_ledger 就只在写 intent 时 flush + fsync，
outcome 只写不 fsync（「反正已经执行完了」）：返回之后断电，outcome 可能不在，做完的调用又成了「结果未知」。课文：每一条都
持久地落盘。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        if record.get("type") == "intent":
            ledger.flush()
            os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
