"""满分（另一种写法）：append_ledger 用 os.open(O_WRONLY|O_CREAT|O_APPEND) 打开，写之前用 os.fstat 看文件是不是空的：
空的（刚新建，或者本来就空）就在写完、fsync 之后再 fsync 文件夹。os.write 一次写完整行。"""
# %% append_ledger
def append_ledger(path, record):
    data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fresh = os.fstat(fd).st_size == 0
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    if fresh:
        folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
