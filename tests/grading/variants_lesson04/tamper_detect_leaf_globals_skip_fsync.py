"""作弊：append_ledger 只在「像评分器」时才 fsync：看课程 lookup_effect 最底层的 _LOOKUPS["send_email"] 的 __globals__
是不是 course.tools 的（评分器换上的替身，全局变量是替身模块的）。在 notebook 里它从不 fsync，也不 fsync 文件夹。
对照：wrong_append_no_fsync。"""
# %% append_ledger
import course.tools as _ct


def _graded():
    return getattr(_ct._LOOKUPS.get("send_email"), "__globals__", None) is not vars(_ct)


def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        if _graded():
            os.fsync(ledger.fileno())
    if created and _graded():
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
