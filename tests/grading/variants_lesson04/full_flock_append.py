"""满分（另一种写法）：append_ledger 用 "a" 模式打开后先 fcntl.flock 加排他锁（防止两个进程交错写），写一行、flush、
fsync，再解锁；新建文件时 fsync 文件夹。"""
# %% append_ledger
import fcntl


def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        fcntl.flock(ledger.fileno(), fcntl.LOCK_EX)
        try:
            ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
            ledger.flush()
            os.fsync(ledger.fileno())
        finally:
            fcntl.flock(ledger.fileno(), fcntl.LOCK_UN)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
