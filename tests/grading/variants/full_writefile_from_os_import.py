"""满分（少见的写法）：学生用 %%writefile 把原子写入写成模块 durable.py，模块里按常见风格 from os import fsync, replace；
答题单元格开头 from … import 它。步骤和参考答案一样（临时文件、flush、fsync、replace、fsync 文件夹）。"""
# %% extra after imports
%%writefile durable.py
import json
import tempfile
from os import O_RDONLY, close, fdopen, fsync, replace
from os import open as os_open
from pathlib import Path


def write_json_atomically(data, path):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(data, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            fsync(tmp.fileno())
        replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    folder = os_open(path.parent, O_RDONLY)
    try:
        fsync(folder)
    finally:
        close(folder)
# %% save_load
from durable import write_json_atomically


def save_checkpoint(state, path=CHECKPOINT_PATH):
    write_json_atomically(state, path)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(os.fsdecode(path))
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
