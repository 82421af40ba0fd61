"""错误（第一次写时常见）：append_ledger 用 os.open(O_APPEND) 拿到描述符，os.write 一整行、os.fsync，却从不 os.close；
新建时文件夹的描述符倒是关了。每追加一条就漏掉一个描述符：agent 每次有副作用的调用漏两个，kernel 里跑上几百轮就用完
描述符（EMFILE），台账再也追加不进去（第 3 课的保存漏描述符同样算错：wrong_save_mkstemp_fd_leak）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    os.fsync(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
