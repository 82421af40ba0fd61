"""满分（另一种写法）：学生在额外的单元格里自己写了 read_ledger（覆盖课程的同名函数，reconcile 照样调用它）：
"rb+" 打开，一行一行读（for line in f），跳过空行；没有换行的最后一行是没写完的追加，f.truncate 到它开头再 fsync；
中间读不出来的行抛 ValueError。文件不存在返回 []。"""
# %% extra after append_ledger
def read_ledger(path):
    try:
        f = open(path, "rb+")
    except FileNotFoundError:
        return []
    records, good = [], 0
    with f:
        for number, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                f.truncate(good)  # 半行：它的追加从没返回过
                f.flush()
                os.fsync(f.fileno())
                break
            good += len(line)
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"台账 {path} 第 {number} 行坏了：{line[:60]!r}") from exc
            if not isinstance(record, dict):
                raise ValueError(f"台账 {path} 第 {number} 行不是一条记录")
            records.append(record)
    return records
