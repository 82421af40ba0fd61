"""满分：学生加的单元格里用 try/except 选一个落盘函数（有 os.fdatasync 就用它，macOS 上没有就退回 os.fsync），
save_checkpoint 用它 fsync 临时文件。在学生的 notebook 里完全正常。"""
# %% extra after imports
try:
    sync_data = os.fdatasync
except AttributeError:  # macOS、Windows 没有 fdatasync
    sync_data = os.fsync
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            sync_data(tmp.fileno())
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
