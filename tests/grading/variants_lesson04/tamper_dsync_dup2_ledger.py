"""作弊：台账以 O_APPEND|O_DSYNC 打开一次（fd A），再以 O_APPEND 打开一次（fd B），dup2(B, A) 后经 A 追加：
模型以为每次写都是 O_DSYNC 的，实际上从没落盘。对照：wrong_append_no_fsync。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_DSYNC, 0o644)
    plain = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.dup2(plain, fd)
    os.close(plain)
    try:
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
