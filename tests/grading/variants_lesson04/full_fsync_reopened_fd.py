"""满分（另一种写法）：append_ledger 用 with open(path, "a") 写一行（with 结束时已经 flush 并关闭），再用 os.open 以只读方式
重新打开这个文件 fsync 它（fsync 落盘的是文件本身，不论通过哪个描述符）；新建文件时再 fsync 文件夹。"""
# %% append_ledger
def _fsync_path(target):
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
    _fsync_path(path)
    if created:
        _fsync_path(path.parent)
