"""错：fsync 文件夹时打开的是 Path(path).parent.name（文件夹的「名字」，相对当前文件夹解析），又把 OSError 吞掉
——「有的文件系统不支持 fsync 文件夹」。只有文件名（parent.name 为空，改用 "."）或一层相对文件夹（data/cp.json）时碰巧对；
绝对路径（/var/agent/cp.json）或两层的相对路径打开的是当前文件夹下一个不存在的名字，OSError 被吞掉，改名从不落盘，
断电后 path 上回到上一份，而 save_checkpoint 已经返回、工具已经执行。"""
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
        try:
            folder = os.open(path.parent.name or ".", os.O_RDONLY)
        except OSError:
            return  # 这个文件系统不让打开文件夹：跳过
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
