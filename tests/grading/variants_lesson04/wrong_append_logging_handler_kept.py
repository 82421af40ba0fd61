"""错误（第十三轮探查之前满分，当时叫 full_logging_handler_ledger）：台账用标准库 logging 写：每本台账一个
logging.FileHandler（"a" 模式、UTF-8、格式只有 %(message)s），emit 之后再 os.fsync 它的 stream；新建台账时 fsync 文件夹。
handler 按路径缓存、一直开着：台账在同一个进程里被删掉之后，记录写进删掉的文件，path 上没有台账（logrotate 之后要
WatchedFileHandler 的同一个道理）。"""
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
