"""满分（另一种写法）：append_ledger 用 contextlib.redirect_stdout 把 print 的一行导进台账（print 自带换行），
flush + fsync，新建时 fsync 文件夹；with 结束时 sys.stdout 换回原样。"""
# %% append_ledger
from contextlib import redirect_stdout


def append_ledger(path, record):
    path = Path(path)
    fresh = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger, redirect_stdout(ledger):
        print(json.dumps(record, ensure_ascii=False))
        ledger.flush()
        os.fsync(ledger.fileno())
    if fresh:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
