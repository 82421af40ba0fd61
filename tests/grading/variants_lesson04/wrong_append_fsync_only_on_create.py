"""错误（缩进错了一层）：append_ledger 把 flush + os.fsync 写进了「这次新建了文件」的 if 里：新建台账的那一次追加
落盘（文件和文件夹都 fsync），往已有的台账追加时只 flush、从不 fsync——之后的每一条 intent、outcome 断电都可能丢。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        if created:
            ledger.flush()
            os.fsync(ledger.fileno())
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
