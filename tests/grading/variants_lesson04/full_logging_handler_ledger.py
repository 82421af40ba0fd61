"""满分（另一种写法）：台账用标准库 logging 写：每本台账一个 logging.FileHandler（"a" 模式、UTF-8、格式只有 %(message)s，
它每条记录写一行并 flush），emit 之后再 os.fsync 它的 stream；新建台账时 fsync 文件夹。handler 按路径缓存。"""
# %% append_ledger
import logging

_HANDLERS = {}


def append_ledger(path, record):
    key = os.path.abspath(path)
    handler = _HANDLERS.get(key)
    if handler is None:
        created = not os.path.exists(key)
        handler = logging.FileHandler(key, mode="a", encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(message)s"))
        if created:
            folder = os.open(os.path.dirname(key), os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        _HANDLERS[key] = handler
    entry = logging.LogRecord("ledger", logging.INFO, key, 0, json.dumps(record, ensure_ascii=False), None, None)
    handler.emit(entry)
    os.fsync(handler.stream.fileno())
