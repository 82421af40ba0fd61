"""满分：模块里只留一个文件夹的描述符（连同它的路径）：存到同一个文件夹时直接对它 fsync；换了文件夹就先关掉旧的、
再打开新的。一直开着的描述符只有一个。"""
# %% save_load
_folder_fd = None  # (文件夹的绝对路径, 描述符)


def _fsync_folder(folder):
    global _folder_fd
    if _folder_fd is None or _folder_fd[0] != folder:
        if _folder_fd is not None:
            os.close(_folder_fd[1])
            _folder_fd = None
        _folder_fd = (folder, os.open(folder, os.O_RDONLY))
    os.fsync(_folder_fd[1])


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
        _fsync_folder(os.path.abspath(path.parent))


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
