"""错：临时文件 + os.replace，改名后 fsync 了文件夹，但临时文件的内容从没 fsync（断电后 path 上可能是空文件）。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = path.parent / (path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 是版本 {version}，需要版本 {CHECKPOINT_VERSION}")
    return state
