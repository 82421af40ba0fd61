"""错：load_checkpoint 用 json.JSONDecoder().raw_decode 读“第一个 JSON 值”，后面多出来的东西（断电留下的 \0、两份内容拼在一起）一概不管：不是合法 JSON 的文件被当成好文件读了进来。"""
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
        state, _ = json.JSONDecoder().raw_decode(text.lstrip())
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
