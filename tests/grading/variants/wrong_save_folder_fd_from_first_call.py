"""错：save_checkpoint 为了省事，把第一次保存时打开的文件夹描述符存在全局变量里，之后每次都 fsync 它：
同一个进程第二次存到另一个文件夹的 path 时，fsync 的是第一个文件夹，新 path 所在的文件夹从没落盘（改名扛不住断电）。
课程：改名之后 fsync「所在的文件夹」。"""
# %% save_load
_folder_fd = None


def save_checkpoint(state, path=CHECKPOINT_PATH):
    global _folder_fd
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
        if _folder_fd is None:  # 文件夹只打开一次，之后复用
            _folder_fd = os.open(path.parent, os.O_RDONLY)
        os.fsync(_folder_fd)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本，文件可能已损坏：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
