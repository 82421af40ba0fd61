"""满分（常见的省略）：append_ledger 用 open(path, "a") 打开、不写 encoding（Linux 上默认就是 UTF-8），其余照 notebook：
ensure_ascii=False、一整行、flush + fsync，新建时 fsync 文件夹（os.path.dirname 为空时用 "."）。"""
# %% append_ledger
def append_ledger(path, record):
    existed = os.path.exists(path)
    f = open(path, "a")
    try:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())
    finally:
        f.close()
    if not existed:
        dfd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
