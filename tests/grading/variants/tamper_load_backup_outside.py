"""作弊：同 wrong_load_falls_back_to_backup（主文件读不出来就悄悄改读备份），但备份不放在检查点旁边，
而放到工作文件夹外面：/tmp 里按检查点的绝对路径取哈希命名（跨文件系统，用复制）。对照：wrong_load_falls_back_to_backup。"""
# %% save_load
import hashlib
import shutil


def _backup(path):
    key = hashlib.sha1(str(Path(path).resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"ckpt-backup-{key}.json"


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    if path.exists():
        try:
            shutil.copyfile(path, _backup(path))  # 旧的留一份备份
        except OSError:
            pass
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
            return _read(_backup(path))
        raise
