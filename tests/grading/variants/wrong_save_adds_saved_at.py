"""错：save_checkpoint 往文件里多写一个顶层字段 savedAt（保存的时间，方便排查），load_checkpoint 读的时候再把它去掉：
自己存、自己读一个字不差，但检查点的格式是恰好六个字段（JavaScript 版和别的工具按这个格式读它），文件里多了一个。"""
# %% save_load
import datetime as _dt


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    stamped = {**state, "savedAt": _dt.datetime.now(_dt.timezone.utc).isoformat()}
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(stamped, tmp, ensure_ascii=False, indent=2)
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
    state.pop("savedAt", None)
    return state
