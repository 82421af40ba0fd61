"""错误：append_ledger 每条记录写一行 JSON、也 fsync 了，却不写换行——下一条记录接在同一行上，两条都读不出来；
读台账的人还会把没有换行的最后一行当作没写完的半截。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False))
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
