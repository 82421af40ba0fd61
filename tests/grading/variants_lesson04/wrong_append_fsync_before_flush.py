"""错：append_ledger 先 fsync 再离开 with（没有 flush）：fsync 时这一行还在 Python 的缓冲区里，没有落盘。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
