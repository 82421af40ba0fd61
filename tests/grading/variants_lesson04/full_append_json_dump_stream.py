"""满分（另一种写法）：append_ledger 用 json.dump 直接写进 "a" 模式打开的文件（长记录分好几次 write 系统调用），
再单独写一个换行，flush + fsync；新建时 fsync 文件夹。崩在几次写之间只留下没有换行的半行，读台账时当作没写。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with path.open("a", encoding="utf-8") as ledger:
        json.dump(record, ledger, ensure_ascii=False)
        ledger.write("\n")
        ledger.flush()
        os.fsync(ledger)
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
