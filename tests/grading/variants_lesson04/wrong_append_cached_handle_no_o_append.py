"""错误（审阅时容易漏看）：append_ledger 按路径缓存一个 os.open(O_WRONLY | O_CREAT) 的描述符，打开时 lseek 到末尾一次，
以后就在自己记下的偏移上写（没有 O_APPEND）。别的进程（同一个文件夹里的另一个任务、回放工具、被杀之后续跑的 agent）
在这期间追加的记录，会被它下一次写覆盖掉：台账不再是只追加的。"""
# %% append_ledger
_FDS = {}


def append_ledger(path, record):
    key = os.path.abspath(path)
    fd = _FDS.get(key)
    if fd is None:
        created = not os.path.exists(key)
        fd = os.open(key, os.O_WRONLY | os.O_CREAT, 0o644)
        os.lseek(fd, 0, os.SEEK_END)
        if created:
            folder = os.open(os.path.dirname(key), os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        _FDS[key] = fd
    os.write(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    os.fsync(fd)
