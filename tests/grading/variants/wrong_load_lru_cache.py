"""错：load_checkpoint 加了 functools.lru_cache「免得重复读盘」：同一个 path 第二次加载拿到的是第一次的结果（文件不存在时缓存了 None，之后存了检查点也读不到；拿到的 dict 还和调用方共用）。"""
# %% save_load
import functools


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


@functools.lru_cache(maxsize=None)
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
    if not isinstance(state, dict):
        raise ValueError(f"检查点 {path} 不是一个 JSON 对象")
    if state.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state.get('version')}，代码只认版本 {CHECKPOINT_VERSION}")
    return state
