"""错误：append_ledger 以为新建台账时 fsync 文件夹就够了（「文件夹落盘了，文件也就落盘了」）：新建时只 fsync 文件夹，
已有的台账才 fsync 文件本身。文件夹的 fsync 只让「这个名字存在」落盘，新文件里写的那一行还在页缓存里：
断电后台账在、却是空的，第一条 intent 丢了（run_agent 从头开始时第一次有副作用的调用就是这样）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        if not created:
            os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
