"""满分（另一种写法）：append_ledger 用二进制 "ab" 模式写编码好的一行，flush + fsync；不判断是不是新建的，每次追加都
fsync 一次文件夹（多一次 fsync，省掉一个判断）。记录用紧凑的分隔符（separators），仍是一行合法的 JSON。"""
# %% append_ledger
def _fsync_folder(folder):
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_ledger(path, record):
    path = Path(path)
    data = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    with path.open("ab") as ledger:
        ledger.write(data)
        ledger.flush()
        os.fsync(ledger.fileno())
    _fsync_folder(path.parent)
