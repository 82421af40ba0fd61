"""满分（另一种写法）：append_ledger 用行缓冲打开（buffering=1，写到换行时自动 flush），写完一行直接 os.fsync，
不再单独调 flush；新建文件时 fsync 文件夹（os.O_DIRECTORY）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8", buffering=1) as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
