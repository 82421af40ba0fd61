"""满分（少见的写法）：和 full_writefile_helper_module 一样，只是 %%writefile 单元格放在答题单元格之前（第一个单元格之后）、import 写在答题单元格的顶层：学生在自己加的单元格里用 %%writefile 把原子写入的辅助函数写成一个模块 ckpt_io.py，答题单元格 import 它；notebook 从上到下运行时一切正常。"""
# %% extra after imports
%%writefile ckpt_io.py
import json
import os
import tempfile
from pathlib import Path


def atomic_write_json(data, path):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(data, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
# %% save_load
from ckpt_io import atomic_write_json


def save_checkpoint(state, path=CHECKPOINT_PATH):
    atomic_write_json(state, path)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
