"""满分（另一种写法）：append_ledger 先用 os.open(O_CREAT|O_EXCL) 判断这次是不是新建——新建就马上 fsync 文件夹（文件名先落盘，
文件是空的，读出来是空台账），再无缓冲地分两次 os.write 写 JSON 和换行，最后 fsync 文件；中途断电只会留下没有换行的半行。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
    except FileExistsError:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        created = False
    try:
        if created:
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        os.write(fd, json.dumps(record, ensure_ascii=False).encode("utf-8"))
        os.write(fd, b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
