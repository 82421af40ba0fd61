"""错误：append_ledger 用 os.open(..., O_WRONLY | O_CREAT | O_APPEND, 644) 新建台账——权限写成了十进制的 644（= 0o1204）：
文件主人只有写权限、没有读权限。追加照常成功、也 fsync 了，可续跑时 read_ledger 读不了这本台账（PermissionError），
对账崩溃，任务再也续不上。应该写 0o644。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 644)
    try:
        os.write(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
