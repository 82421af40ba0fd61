"""满分（另一种写法）：append_ledger 用 pathlib 的 path.open("a")，写完 flush 后用 os.fdatasync（追加改变了文件大小，
fdatasync 会连同大小一起落盘）；新建文件时 fsync 文件夹用 O_DIRECTORY 打开。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    is_new = not path.exists()
    line = json.dumps(record, ensure_ascii=False) + "\n"
    with path.open("a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fdatasync(f.fileno())
    if is_new:
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
