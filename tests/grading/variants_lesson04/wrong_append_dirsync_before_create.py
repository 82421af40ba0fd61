"""错误：append_ledger 发现台账还不存在时，先 fsync 文件夹、再打开文件创建它：fsync 文件夹时新文件的名字还不在目录里，
断电后新台账可能整个不见。课文：「如果这次追加创建了台账文件，还要 fsync 它所在的文件夹」——要在创建之后。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    if not path.exists():
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
