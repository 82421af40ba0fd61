"""满分（少见的写法）：学生用 %%writefile 把追加写成模块 jsonl_append.py（from os import fsync 的风格），
答题单元格开头 from … import 它。步骤和参考答案一样："a" 模式写一整行、flush、fsync，新建时 fsync 文件夹。"""
# %% extra after imports
%%writefile jsonl_append.py
import json
from os import O_RDONLY, close, fsync
from os import open as os_open
from pathlib import Path


def append_json_line(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()
        fsync(handle.fileno())
    if created:
        folder = os_open(path.parent, O_RDONLY)
        try:
            fsync(folder)
        finally:
            close(folder)
# %% append_ledger
from jsonl_append import append_json_line


def append_ledger(path, record):
    append_json_line(path, record)
