"""错：为了避开 os.open("") 的 FileNotFoundError（path 只有文件名时 dirname 是空字符串），写成「有文件夹才 fsync 文件夹」：
默认的 checkpoint.json（当前文件夹）每次保存都不 fsync 文件夹，改名没有落盘，断电后 path 上还是上一份（甚至没有）。
课文：改名之后 fsync 所在的文件夹，只有 Windows 上省掉这一步；当前文件夹也是一个文件夹（os.path.dirname(path) or "."）。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = os.fspath(path)
    folder = os.path.dirname(path)
    fd, tmp_path = tempfile.mkstemp(dir=folder or ".", prefix=os.path.basename(path) + ".", suffix=".tmp")
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
    if os.name != "nt" and folder:  # 只有文件名时没有文件夹可 fsync
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

