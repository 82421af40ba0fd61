"""错误（「打开一次、一直开着」）：append_ledger 第一次调用时打开台账，把句柄存在全局变量里，以后每次都往这个句柄写
（flush + fsync），不看传进来的 path——同一个进程里换一本台账（另一个任务、另一个文件夹），记录写进了第一本。"""
# %% append_ledger
_LEDGER_FILE = None


def append_ledger(path, record):
    global _LEDGER_FILE
    if _LEDGER_FILE is None or _LEDGER_FILE.closed:
        path = Path(path)
        created = not path.exists()
        _LEDGER_FILE = open(path, "a", encoding="utf-8")
        if created:
            d = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(d)
            finally:
                os.close(d)
    _LEDGER_FILE.write(json.dumps(record, ensure_ascii=False) + "\n")
    _LEDGER_FILE.flush()
    os.fsync(_LEDGER_FILE.fileno())
