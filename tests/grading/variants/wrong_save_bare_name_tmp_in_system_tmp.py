"""错：临时文件的文件夹写成 os.path.dirname(path) or None，以为 None 就是当前文件夹；其实 mkstemp(dir=None) 用的是系统的临时文件夹
（/tmp）。默认的 checkpoint.json 上，临时文件不再和目标同一个文件夹：/tmp 在另一个文件系统（常见的 tmpfs）时 os.replace 抛 OSError，
每次保存都失败；在同一个文件系统时改名跨了文件夹，只 fsync 了目标文件夹。课文：临时文件放在 path 所在的同一个文件夹里。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = os.fspath(path)
    folder = os.path.dirname(path)
    fd, tmp_path = tempfile.mkstemp(dir=folder or None, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.unlink(tmp_path)
        raise
    if os.name != "nt":
        dfd = os.open(folder or ".", os.O_RDONLY)
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

