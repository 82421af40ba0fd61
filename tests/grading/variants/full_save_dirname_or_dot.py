"""满分：文件夹写成 os.path.dirname(path) or "."（只有文件名的默认路径，文件夹就是当前文件夹），mkstemp 和 fsync
文件夹都用它；先 json.dumps 成字节（存不了的值在碰磁盘之前就报错），再用 os.fdopen(fd, "wb") 写进临时文件，出错时删掉再抛出去。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")  # 先序列化：存不了的值在碰磁盘之前就报错
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if os.name != "nt":
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


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
