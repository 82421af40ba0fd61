"""错误（第十三轮探查之前满分，当时叫 full_cached_handle_append）：append_ledger 把每本台账的文件对象缓存在一个字典里
（按绝对路径），第一次追加时用 "a" 模式打开（这次打开新建了文件就 fsync 文件夹），以后每次只写一行、flush、os.fsync。
台账在同一个进程里被删掉之后（清空文件夹、重新运行单元格），缓存的句柄还指向删掉的文件：之后的记录谁也读不到，path 上没有台账。"""
# %% append_ledger
_OPEN_LEDGERS = {}


def append_ledger(path, record):
    key = os.path.abspath(path)
    handle = _OPEN_LEDGERS.get(key)
    if handle is None or handle.closed:
        created = not os.path.exists(key)
        handle = open(key, "a", encoding="utf-8")
        if created:
            folder = os.open(os.path.dirname(key), os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        _OPEN_LEDGERS[key] = handle
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()
    os.fsync(handle.fileno())
