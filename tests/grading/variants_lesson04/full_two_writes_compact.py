"""满分（另一种写法）：append_ledger 用 os.open(O_APPEND) 和两次 os.write（先写紧凑的 JSON——separators=(",", ":")、
sort_keys=True——再写换行），最后 os.fsync；崩在两次 write 之间只留下没有换行的半行，读台账时当作没写。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8"))
        os.write(fd, b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
