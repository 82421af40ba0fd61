"""错误（变异测试）：append_ledger 把同一行写了两次（每条记录在台账里出现两次）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
