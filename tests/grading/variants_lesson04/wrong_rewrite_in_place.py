"""错误：append_ledger 读出旧记录、用 "w" 整份重写台账再 fsync——清空和写回之间断电，旧记录全丢了。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    with open(path, "w", encoding="utf-8") as ledger:
        ledger.write(old + json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
