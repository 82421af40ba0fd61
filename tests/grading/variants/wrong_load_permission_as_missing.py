"""错：load_checkpoint 把没有读权限（PermissionError）也当成「文件不存在」返回 None，任务悄悄从头开始；
路径上是文件夹、文件坏了、版本不对都照样报错。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(state, file, ensure_ascii=False)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, PermissionError):  # 读不到，就当作还没有检查点
        return None
    except UnicodeDecodeError as error:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{error}") from error
    try:
        state = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
