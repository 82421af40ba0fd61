"""错误：append_ledger 把换行写在记录前面（"\n" + json），想让上一条被崩溃截断的半行「先结束」：文件的最后一条记录
总是没有换行结尾，课程的 read_ledger 把它当成崩溃留下的半行截掉，开头的空行又是一行读不出来的记录（ValueError）。
课文：把一整行（以 "\n" 结尾）写在末尾。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write("\n" + json.dumps(record, ensure_ascii=False))
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
