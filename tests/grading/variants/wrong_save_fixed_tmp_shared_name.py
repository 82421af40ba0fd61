"""错：临时文件名固定为 path 所在文件夹里的 .checkpoint.tmp（与 path 的文件名无关），同一文件夹里的两个任务的保存会用同一个临时文件互相覆盖、互相改名到对方那里。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    tmp_path = path.parent / ".checkpoint.tmp"
    try:
        with open(tmp_path, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    if os.name != "nt":
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
