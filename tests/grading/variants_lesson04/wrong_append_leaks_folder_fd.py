"""错误（第一次写时常见）：append_ledger 新建台账时一行写完 os.fsync(os.open(文件夹, os.O_RDONLY))，文件夹的描述符再也关不上：
每新建一本台账漏一个（第 3 课的 wrong_save_dir_fd_leak）。台账本身用 with 打开，关得好好的。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        os.fsync(os.open(path.parent, os.O_RDONLY))
