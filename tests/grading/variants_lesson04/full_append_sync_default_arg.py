"""满分（少见的写法）：append_ledger 把「落盘函数」做成参数默认值 _sync=getattr(os, "fdatasync", os.fsync)
（有 fdatasync 就用它：追加改变了文件大小，fdatasync 会连大小一起落盘）；其余和参考答案一样：
"a" 模式写一整行、flush、_sync，新建文件时 fsync 文件夹。"""
# %% append_ledger
def append_ledger(path, record, *, _sync=getattr(os, "fdatasync", os.fsync)):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        _sync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
