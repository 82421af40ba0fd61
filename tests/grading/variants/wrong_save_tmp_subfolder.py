"""错：临时文件建在检查点旁边新建的子文件夹 .tmp/ 里（os.makedirs(exist_ok=True)、mkstemp(dir=子文件夹)），写完 fsync、
os.replace 到 path、fsync path 所在的文件夹：同一块磁盘，改名原子，按断电模型也落了盘；可每次保存之后检查点旁边都留着
这个 .tmp 文件夹，而课文和 save_checkpoint 的说明要的是「同一文件夹里的临时文件」，可见检查也要求文件夹里只有检查点。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    scratch = path.parent / ".tmp"
    os.makedirs(scratch, exist_ok=True)
    fd, tmp_path = tempfile.mkstemp(dir=scratch, prefix=path.name + ".", suffix=".tmp")
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
