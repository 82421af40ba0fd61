"""错：append_ledger 用 "w" 打开，每次都覆盖台账，只剩最后一条记录。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "w", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
