"""错：save_checkpoint 记住每个 path 上次写进去的文本（模块级 dict），这次要写的一样就直接返回，「省一次写盘」。
可它比的是内存里的记录，不是磁盘：path 上的文件在两次保存之间被换掉、删掉或写坏（notebook 的原子写入演示就是先
存 cpB、再用 overwrite_in_place 写坏它、再存一次 cpB），这次保存什么也不做就返回，path 上仍是坏文件或别的检查点。
课文：save_checkpoint 把 state 写进 path，返回之后 path 上就是这一份。"""
# %% save_load
_LAST_WRITTEN = {}


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    text = json.dumps(state, ensure_ascii=False, indent=2)
    key = os.path.abspath(path)
    if _LAST_WRITTEN.get(key) == text:
        return  # 和上次存的一样，不用再写
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            tmp.write(text)
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
    _LAST_WRITTEN[key] = text


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

