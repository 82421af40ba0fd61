"""满分（另一种写法）：append_ledger 先用 O_CREAT | O_EXCL 试着新建台账，FileExistsError 就说明台账已经在，改用普通的
O_APPEND 打开：「是不是这次新建的」由内核一步说清，不先 exists() 再打开。写字节、fsync 文件；新建的才 fsync 文件夹
（os.O_DIRECTORY 打开）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
    except FileExistsError:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        created = False
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
