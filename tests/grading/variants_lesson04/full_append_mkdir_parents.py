"""满分（另一种写法，多做一步）：append_ledger 先 mkdir(parents=True, exist_ok=True) 确保台账的文件夹在（评分时它总在：
mkdir 只得到 EEXIST），再照课文追加、fsync；新建台账时 fsync 所在的文件夹。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    is_new = not path.is_file()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if is_new:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
