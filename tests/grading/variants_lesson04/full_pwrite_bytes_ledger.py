"""满分（另一种写法）：append_ledger 用 os.pwrite 一个字节一个字节地把一行写在文件末尾（只有一个写者），再 os.fsync；
新建文件时 fsync 文件夹。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        end = os.fstat(fd).st_size
        for i in range(len(line)):
            os.pwrite(fd, line[i:i + 1], end + i)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
