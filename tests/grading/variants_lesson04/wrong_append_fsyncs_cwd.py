"""错误：append_ledger 新建台账时 fsync 的是当前工作目录 os.open(".")，而不是台账所在的文件夹（台账不在当前目录时，
新文件的名字没有落盘）。"""
# %% append_ledger
def append_ledger(path, record):
    created = not os.path.exists(path)
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(".", os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
