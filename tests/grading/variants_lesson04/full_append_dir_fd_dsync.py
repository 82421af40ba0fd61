"""满分（少见的写法）：append_ledger 先打开台账所在的文件夹，再用 os.open(文件名, O_WRONLY|O_APPEND|O_CREAT|O_DSYNC,
dir_fd=文件夹) 打开台账（openat 的写法，和文件夹钉在一起）；O_DSYNC 让每次 write 返回时这一行已经落盘，所以不另调 fsync；
这次追加创建了文件时，对同一个文件夹描述符 fsync。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            os.stat(path.name, dir_fd=folder)
            created = False
        except FileNotFoundError:
            created = True
        fd = os.open(path.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_DSYNC, 0o644, dir_fd=folder)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        if created:
            os.fsync(folder)
    finally:
        os.close(folder)
