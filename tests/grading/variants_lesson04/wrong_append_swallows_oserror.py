"""错误：append_ledger「记账失败不能让 agent 停下」：写台账抛出 OSError（磁盘满、没有写权限、路径上是个文件夹）时只打印一句
警告就返回。调用它的 execute_with_ledger 以为 intent 已经落盘，照样执行工具；崩溃后台账里没有这次调用，恢复代码以为它从没开始，
会再做一次。写不进去时应该让异常抛出去。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    try:
        created = not path.exists()
        with open(path, "a", encoding="utf-8") as ledger:
            ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
            ledger.flush()
            os.fsync(ledger.fileno())
        if created:
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    except OSError as exc:
        print("警告：台账写不进去，先跳过：", exc)
