"""错误：append_ledger 新建台账时想 fsync 文件夹，却 os.open 了台账文件本身（path，不是 path.parent）再 fsync：
文件的内容又落了一次盘，新文件的名字（记在文件夹里）没有。断电后台账这个名字可能不在。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path, os.O_RDONLY)  # 本想打开所在的文件夹
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
