"""错误：append_ledger 用一个全局集合记住「这本台账我建过了」，以后不再看文件在不在：台账被删掉（任务重来、清理脚本）
之后重建的那次追加不再 fsync 文件夹，断电后新台账的名字可能不在，记录跟着丢。"""
# %% append_ledger
_CREATED = set()


def append_ledger(path, record):
    path = Path(path)
    key = os.path.abspath(path)
    created = key not in _CREATED and not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    _CREATED.add(key)
