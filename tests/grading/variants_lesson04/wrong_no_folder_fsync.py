"""错误：append_ledger 新建台账时不 fsync 文件夹——断电后「这个文件存在」本身可能丢失。"""
# %% append_ledger
def append_ledger(path, record):
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
