"""满分（pathlib 的写法，边界）：append_ledger 直接用 path 的 pathlib 方法——path.exists()、path.open("a")、path.parent——
没有先 Path(path)：notebook 里台账的路径处处是 Path（ledger_path(...) 返回 Path，CHECKPOINT_PATH 是 Path，可见检查也传 Path），
在学生的 notebook 里它每次都对。写一整行、flush + os.fsync，新建时 fsync 所在的文件夹。"""
# %% append_ledger
def append_ledger(path, record):
    created = not path.exists()
    with path.open("a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
