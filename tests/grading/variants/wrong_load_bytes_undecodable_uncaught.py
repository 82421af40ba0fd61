"""错：load_checkpoint 用 json.loads(path.read_bytes())（json 自己认字节的编码），只把 JSONDecodeError 换成带路径的
ValueError；不是 UTF-8 的文件（GBK）抛出的 UnicodeDecodeError 虽然也是 ValueError，信息里却没有路径、也不是中文。"""
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
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_bytes())
    except json.JSONDecodeError as error:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{error}") from error
    if not isinstance(state, dict):
        raise ValueError(f"检查点 {path} 不是一个 JSON 对象")
    if state.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state.get('version')}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
