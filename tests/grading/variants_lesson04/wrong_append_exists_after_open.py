"""错误：append_ledger 想在新建台账时 fsync 文件夹，却在 open(..., "a") 之后才看文件在不在：这时它总是已经在了，
文件夹从不 fsync，新台账的名字断电后可能不在。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    with open(path, "a", encoding="utf-8") as ledger:
        created = not path.exists()
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
