"""满分（另一种写法）：学生在额外的单元格里自己写了 read_ledger（覆盖课程的同名函数）：末尾有半行时，不在原文件上截，而是把
完整的部分写进同一个文件夹里的临时文件、fsync、os.replace 成台账、再 fsync 文件夹（第 3 课的原子写入）：任何时刻断电，台账都是
修之前或修之后的一份，已经落盘的记录一条不丢。中间坏了的行抛 ValueError。"""
# %% extra after append_ledger
def read_ledger(path):
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    complete = data[:data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(complete)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    records = []
    for number, raw in enumerate(complete.split(b"\n")[:-1], 1):
        try:
            record = json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            raise ValueError(f"台账 {path} 第 {number} 行坏了")
        records.append(record)
    return records
