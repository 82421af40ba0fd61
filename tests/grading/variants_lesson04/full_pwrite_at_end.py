"""满分（另一种写法）：append_ledger 不用 O_APPEND，而是 os.open 之后用 os.fstat 取文件长度，用 os.pwrite 把一整行写在
末尾（只有一个写者），再 os.fsync；新建文件时 fsync 文件夹。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        os.pwrite(fd, line, os.fstat(fd).st_size)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
