"""错误：append_ledger 用 os.path.dirname(path) 当文件夹去 fsync——台账是默认的 ledger_path(CHECKPOINT_PATH)，即不带文件夹的
"ledger.jsonl" 时，dirname 是 ""，os.open("") 抛 FileNotFoundError：run_agent(task) 用默认 path 时第一次写 intent 就崩（行已经写进去了）。"""
# %% append_ledger
def append_ledger(path, record):
    path = os.fspath(path)
    created = not os.path.exists(path)
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(os.path.dirname(path), os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
