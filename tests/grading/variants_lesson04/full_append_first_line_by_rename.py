"""满分（另一种写法）：append_ledger 新建台账时不直接 open("a")，而是像第 3 课存检查点那样把第一行写进同一文件夹里的
临时文件、fsync、os.replace 成台账、再 fsync 文件夹（新台账要么不在、要么带着完整的第一行）；台账已经在时照常
O_APPEND 追加、fsync。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except FileNotFoundError:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".new")
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
        return
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
