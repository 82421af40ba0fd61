"""满分（另一种写法）：append_ledger 用 json.dumps 的默认参数（ensure_ascii=True，中文写成 \\uXXXX）再加 sort_keys=True，
print 到文件里（print 自己加换行），flush + fsync；新建时 fsync 文件夹。每条记录仍是一行合法的 JSON，read_ledger 读得回同样的数据。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    is_new = not path.exists()
    with open(path, "a", encoding="utf-8") as out:
        print(json.dumps(record, sort_keys=True), file=out)
        out.flush()
        os.fsync(out.fileno())
    if is_new:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
