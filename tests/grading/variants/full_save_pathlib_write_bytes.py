"""满分：只用 pathlib 写临时文件——Path.write_bytes 写进同一文件夹里随机名字的临时文件，再用 os.open 只读打开它 fsync
（fsync 落盘的是文件，不管描述符是为读还是为写打开的），os.replace 改名，最后 os.open 文件夹 fsync。"""
# %% save_load
import secrets


def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = Path(path)
    scratch = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        scratch.write_bytes(json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8"))
        handle = os.open(scratch, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(scratch, target)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise
    if os.name != "nt":
        folder = os.open(target.parent, os.O_RDONLY)
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
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
