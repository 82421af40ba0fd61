"""错：load_checkpoint 用 assert 检查「是一个对象、版本对得上」：不是对象或版本不符时抛的是 AssertionError，不是 ValueError
（python -O 下 assert 整个被跳过，坏文件照样收下）。课文：这些情况都要抛带路径的中文 ValueError。"""
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
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"检查点 {path} 读不出来：{exc}") from exc
    assert isinstance(state, dict), f"检查点 {path} 不是一个 JSON 对象"
    assert state.get("version") == CHECKPOINT_VERSION, \
        f"检查点 {path} 的版本是 {state.get('version')}，这段代码只认版本 {CHECKPOINT_VERSION}"
    return state
