"""满分：save_checkpoint 一开始就打开文件夹（os.open(folder, O_RDONLY)，Windows 上不开），临时文件、改名都在它里面做，
改名之后对这个一开始就打开的描述符 fsync，最后在 finally 里关掉；临时文件用 os.open(O_CREAT | O_EXCL) 建，名字带 uuid。"""
# %% save_load
import uuid


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    folder = path.parent
    folder_fd = os.open(folder, os.O_RDONLY) if os.name != "nt" else None
    tmp = folder / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with open(fd, "w", encoding="utf-8", closefd=True) as file:
                json.dump(state, file, ensure_ascii=False)
                file.flush()
                os.fsync(file.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        if folder_fd is not None:
            os.fsync(folder_fd)
    finally:
        if folder_fd is not None:
            os.close(folder_fd)


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
