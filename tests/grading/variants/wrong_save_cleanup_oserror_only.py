"""错：save_checkpoint 只在 OSError（磁盘满、没有权限）时删掉临时文件：state 里有 JSON 存不了的值时，
json.dump 抛出的是 TypeError，异常照样抛出去了，写了一半的临时文件却留在文件夹里。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(state, file, ensure_ascii=False, indent=2)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError:
        os.unlink(temporary)
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
    except FileNotFoundError:
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
