"""错：保存前先把旧检查点复制成 <path>.bak 备份；加载时主文件读不出来（坏 JSON、版本不符……）就悄悄改读备份——读不出来的检查点本该报错等人来看，改读更早的一份会把做过的轮次（甚至发过的信）再做一遍。"""
# %% save_load
import shutil


def _backup(path):
    return path.with_name(path.name + ".bak")


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    if path.exists():
        shutil.copy2(path, _backup(path))  # 旧的留一份备份
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


def _read(path):
    try:
        text = path.read_text(encoding="utf-8")
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


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        return _read(path)
    except ValueError:
        if _backup(path).exists():
            print(f"检查点 {path} 坏了，改用备份")
            return _read(_backup(path))
        raise
