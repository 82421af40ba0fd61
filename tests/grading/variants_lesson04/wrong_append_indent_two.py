"""错误：append_ledger 照抄第 3 课 save_checkpoint 的 json.dump(..., indent=2)：一条记录占了好几行。台账按行读，
"{" 这一行不是一条完整的记录，课程的 read_ledger 读它抛 ValueError（或者把没有换行结尾的最后几行当成半行截掉）。
课文：一条记录必须写在一行里，不要带 indent。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        json.dump(record, ledger, ensure_ascii=False, indent=2)
        ledger.write("\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
